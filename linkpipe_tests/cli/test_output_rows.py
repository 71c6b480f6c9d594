"""Query results on a terminal: rounded floats, wrapped text, wide results that fit."""

import io
from pathlib import Path

import pytest
from rich.console import Console

from linkpipe.cli.errors import UserError
from linkpipe.cli.main import main
from linkpipe.cli.output import format_float, pick_columns, print_rows
from linkpipe.lib.storage import open_db

SENTENCE = "Layer masks hide parts of a layer without erasing them, so every edit stays reversible."


def render(columns: list[str], rows: list[tuple], width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    print_rows(columns, rows, "table", console)
    return console.export_text()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.87312345678901234, "0.873"),
        (-0.5, "-0.500"),
        (0.0123456789, "0.0123"),
        (0.000871234567, "0.000871"),
        (1.0, "1.000"),
        (12.3456789, "12.35"),
        (1234.56789, "1235"),
        (123456.789, "123457"),
        (0.0, "0"),
        (1.5e-9, "1.500e-09"),
        (2.5e17, "2.500e+17"),
        (float("nan"), "nan"),
    ],
)
def test_floats_are_rounded_for_reading(value: float, text: str):
    assert format_float(value) == text


def test_a_narrow_result_is_a_plain_table_with_numbers_right_aligned():
    rows = [("/a/", 0.123456789, 3), ("/b/", None, 12)]
    assert render(["url", "score", "inlinks"], rows, 40) == (
        "┏━━━━━┳━━━━━━━┳━━━━━━━━━┓\n"
        "┃ url ┃ score ┃ inlinks ┃\n"
        "┡━━━━━╇━━━━━━━╇━━━━━━━━━┩\n"
        "│ /a/ │ 0.123 │       3 │\n"
        "│ /b/ │       │      12 │\n"
        "└─────┴───────┴─────────┘\n"
    )


def test_long_text_wraps_inside_the_console_width():
    assert render(["url", "sentence", "score"], [("/masks/", SENTENCE, 0.87654321)], 40) == (
        "┏━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━┳━━━━━━━┓\n"
        "┃ url     ┃ sentence           ┃ score ┃\n"
        "┡━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━╇━━━━━━━┩\n"
        "│ /masks/ │ Layer masks hide   │ 0.877 │\n"
        "│         │ parts of a layer   │       │\n"
        "│         │ without erasing    │       │\n"
        "│         │ them, so every     │       │\n"
        "│         │ edit stays         │       │\n"
        "│         │ reversible.        │       │\n"
        "└─────────┴────────────────────┴───────┘\n"
    )


def test_columns_that_do_not_fit_are_left_out_and_named_empty_ones_first():
    columns = ["empty"] + [f"column_{i}" for i in range(8)]
    rows = [(None,) + tuple(f"value {i}" for i in range(8))]
    assert render(columns, rows, 60) == (
        "┏━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┓\n"
        "┃ column_0 ┃ column_1 ┃ column_2 ┃ column_3 ┃ column_4 ┃\n"
        "┡━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━┩\n"
        "│ value 0  │ value 1  │ value 2  │ value 3  │ value 4  │\n"
        "└──────────┴──────────┴──────────┴──────────┴──────────┘\n"
        "5 of 9 columns fit in 60 characters; left out: empty, \n"
        "column_5, column_6, column_7. Choose columns with --columns \n"
        "empty,column_5 or see them all with --format csv.\n"
    )


def test_a_wide_result_never_squeezes_columns():
    # v_opportunities-like: 30 columns of URLs, sentences and scores on an 80-column terminal
    columns = ["source_url", "target_url", "sentence"] + [f"score_{i}" for i in range(27)]
    row = ("https://example.test/guides/layer-masks/", "https://example.test/brushes/", SENTENCE)
    text = render(columns, [row + tuple(0.123456789 * i for i in range(27))], 80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = lines[1]
    cells = [c.strip() for c in header.strip("┃").split("┃")]
    assert cells == ["source_url", "target_url", "sentence", "score_0", "score_1"]
    table_widths = [len(c) for c in lines[0].strip("┏┓").split("┳")]
    assert min(table_widths) >= 9  # "score_0" with its padding; texts at least 16 wide
    assert "0.123456789" not in text and "0.123" in text
    left_out = ", ".join(f"score_{i}" for i in range(2, 27))
    assert " ".join(text.split()).endswith(
        f"5 of 30 columns fit in 80 characters; left out: {left_out}. Choose columns with "
        "--columns score_2,score_3 or see them all with --format csv."
    )


def test_csv_and_tsv_keep_full_precision(capsys: pytest.CaptureFixture[str]):
    print_rows(["url", "score"], [("/a/", 0.123456789012345), ("/b/", None)], "csv")
    assert capsys.readouterr().out == "url,score\n/a/,0.123456789012345\n/b/,\n"
    print_rows(["url", "score"], [("/a/", 0.123456789012345)], "tsv")
    assert capsys.readouterr().out == "url\tscore\n/a/\t0.123456789012345\n"


def test_pick_columns_in_the_order_asked_any_case():
    columns, rows = pick_columns(["a", "B", "c"], [(1, 2, 3), (4, 5, 6)], "c, b")
    assert columns == ["c", "B"] and rows == [(3, 2), (6, 5)]
    with pytest.raises(UserError) as caught:
        pick_columns(["a", "B"], [], "a,zz")
    assert str(caught.value) == "--columns: no column named zz; the query returns: a, B"


def test_sql_command_picks_columns_and_rounds(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    db = tmp_path / "q.duckdb"
    with open_db(db):
        pass
    query = "SELECT 0.123456789::DOUBLE AS score, 'x' AS url"
    assert main(["sql", "--db", str(db), "--columns", "url,score", "--format", "csv", query]) == 0
    assert capsys.readouterr().out == "url,score\nx,0.123456789\n"
    assert main(["sql", "--db", str(db), "--columns", "score", query]) == 0
    out = capsys.readouterr().out
    assert "0.123" in out and "0.1234" not in out and "url" not in out
    assert main(["sql", "--db", str(db), "--columns", "nope", query]) != 0
    assert "--columns: no column named nope; the query returns: score, url" in (
        capsys.readouterr().err
    )
