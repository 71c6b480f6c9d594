"""The page pass: the stems and name counts of every page, the same in worker processes."""

import pytest

from linkpipe.lib.links.anchors import STOP_STEMS
from linkpipe.lib.text import page_pass as pp
from linkpipe.lib.text.lexical import phrase_key
from linkpipe.lib.text.mentions import MentionIndex
from linkpipe.lib.text.term_counts import CountsJoiner
from linkpipe.lib.text.tfidf import analyse, fit_counts
from linkpipe_tests.lib.text.corpus import zipf_corpus

TEXTS = zipf_corpus(900, seed=11)
PAGES = [
    pp.PassPage(f"/p{i:03}", f"W{i}x guide", "", t, (f"/p{(i * 7) % 900:03}",))
    for i, t in enumerate(TEXTS)
]


def _names() -> MentionIndex:
    names = {p.url: [(p.title, "title")] for p in PAGES}
    names["/p001"] = [("w0x w1x", "title")]  # a two-word name
    return MentionIndex(names, (), {}, STOP_STEMS)


def test_page_stems_are_analyse_of_title_h1_and_text() -> None:
    counted, stems = pp.page_stems("The Raster tools", "Masks", "Install GDAL's raster masks.")
    assert counted == analyse("The Raster tools") + analyse("Masks") + analyse(
        "Install GDAL's raster masks."
    )
    assert stems == list(phrase_key("Install GDAL's raster masks.")) == [
        "install", "gdal", "raster", "mask",
    ]  # fmt: skip


def test_pass_counts_the_names_every_page_mentions() -> None:
    names, joiner = _names(), CountsJoiner()
    pp.page_pass(PAGES, names, joiner, len(PAGES), workers=1)
    reference = MentionIndex(
        {p.url: [(p.title, "title")] for p in PAGES} | {"/p001": [("w0x w1x", "title")]},
        ((p.url, phrase_key(p.main_text)) for p in PAGES),
        {p.url: set(p.linked) for p in PAGES},
        STOP_STEMS,
    )
    assert names.frame().equals(reference.frame())
    assert names.mentioned_by[("w0x", "w1x")] > 0
    assert joiner.urls == [p.url for p in PAGES]


@pytest.mark.parametrize("workers", [2, 3])
def test_worker_processes_give_the_counts_of_one_process(monkeypatch, workers) -> None:
    monkeypatch.setattr(pp, "BATCH_PAGES", 100)  # 9 batches over the workers
    serial_names, serial_terms = _names(), CountsJoiner()
    pp.page_pass(PAGES, serial_names, serial_terms, len(PAGES), workers=1)
    names, terms = _names(), CountsJoiner()
    pp.page_pass(iter(PAGES), names, terms, len(PAGES), workers=workers)
    assert names.frame().equals(serial_names.frame())
    assert names.self_mentions == serial_names.self_mentions
    a, b = fit_counts(terms), fit_counts(serial_terms)
    assert a.urls == b.urls == [p.url for p in PAGES]
    assert list(a.terms) == list(b.terms) and (a.matrix != b.matrix).nnz == 0
    assert a.matrix.nnz > 10_000
