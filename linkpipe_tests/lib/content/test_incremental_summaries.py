"""page_summaries reuses the previous crawl's rows exactly when the reuse key is unchanged:
an incremental crawl gives the rows of a full recomputation, table for table."""

import random
from pathlib import Path

import pytest

from linkpipe.lib.hashing import DEFAULT_SHARDS, shard_of, text_hash
from linkpipe.lib.html.stored import compress_html
from linkpipe.lib.stages.indexable_pages import materialize_indexable_pages
from linkpipe.lib.stages.page_summaries import extractor_digest, materialize_page_summaries
from linkpipe.lib.storage import execute, open_db, write_partition

SITE = "http://site.test/"
TABLES = ("page_summaries", "page_sentences", "page_text_links")
VOCABULARY = (
    "orchard harbour glacier volcano meadow canyon river forest island valley desert lagoon "
    "summit prairie reef delta tundra marsh plateau fjord cliff dune savanna grove basin ridge "
    "apple pear plum cherry walnut maple cedar birch willow spruce fern moss lichen heather "
    "boat ferry bridge tunnel road trail path track lane gate tower castle chapel mill barn "
    "winter spring summer autumn morning evening storm breeze frost thaw drought flood tide"
).split()
N_PAGES = 6


def page_html(i: int, title: str, edit: str = "") -> str:
    """A page with a navigation bar, three paragraphs of its own words and in-text links."""
    rng = random.Random(i)

    def sentence() -> str:
        words = [rng.choice(VOCABULARY) for _ in range(rng.randint(9, 14))]
        return " ".join(words).capitalize() + "."

    paragraphs = [" ".join(sentence() for _ in range(4)) for _ in range(3)]
    other = (i + 1) % N_PAGES
    paragraphs[1] += f' Read the <a href="/p{other}/">guide to topic {other}</a> next.'
    return f"""<html><head><title>{title}</title></head><body>
<nav><a href="/">Home</a> <a href="/p0/">First</a></nav>
<main><article><h1>Topic {i}</h1><p>{paragraphs[0]} {edit}</p><h2>Details of topic {i}</h2>
<p>{paragraphs[1]}</p><p>{paragraphs[2]}</p></article></main>
<footer><a href="/privacy/">Privacy</a></footer></body></html>"""


def titles(affix: str = "Acme", changed: dict[int, str] | None = None) -> dict[int, str]:
    return {i: (changed or {}).get(i, f"Topic {i} | {affix}") for i in range(N_PAGES)}


def store_crawl(
    db: Path, crawl_id: str, page_titles: dict[int, str], edits: dict[int, str] | None = None
) -> None:
    """Register a crawl of SITE and store its pages, as crawl_export would."""
    rows = []
    for i, title in page_titles.items():
        url = f"{SITE}p{i}/"
        html = page_html(i, title, (edits or {}).get(i, ""))
        rows.append(
            {
                "url": url,
                "shard": shard_of(url),
                "status": 200,
                "final_url": url,
                "content_type": "text/html",
                "canonical": "",
                "meta_robots": "",
                "x_robots_tag": "",
                "title": title,
                "h1": f"Topic {i}",
                "meta_description": f"All about topic {i}.",
                "html_z": compress_html(html),
                "content_hash": text_hash(html),
                "depth": 1,
            }
        )
    with open_db(db) as con:
        execute(con, "write/upsert_crawl", [crawl_id, SITE, "crawler", "", "{}"])
        write_partition(con, crawl_id, {"crawl_pages": rows})


def summarise(db: Path, crawl_id: str) -> dict[str, object]:
    """indexable_pages and every shard of page_summaries; the summed reuse counts."""
    materialize_indexable_pages(db, crawl_id)
    metas = [materialize_page_summaries(db, crawl_id, s).meta for s in range(DEFAULT_SHARDS)]
    return {
        "reused": sum(m["reused_pages"] for m in metas),
        "recomputed": sum(m["recomputed_pages"] for m in metas),
        "reused_from": {m["reused_from"] for m in metas} - {None},
    }


def table_rows(db: Path, crawl_id: str) -> dict[str, list[tuple]]:
    with open_db(db, read_only=True) as con:
        return {
            t: con.execute(
                f"SELECT * EXCLUDE (crawl_id) FROM {t} WHERE crawl_id = ? ORDER BY ALL", [crawl_id]
            ).fetchall()
            for t in TABLES
        }


def full_recomputation(tmp_path: Path, crawl_id: str, page_titles, edits=None):
    """The rows of ``crawl_id`` computed from scratch, in a database without earlier crawls."""
    db = tmp_path / f"full-{crawl_id}.duckdb"
    store_crawl(db, crawl_id, page_titles, edits)
    assert summarise(db, crawl_id) == {"reused": 0, "recomputed": N_PAGES, "reused_from": set()}
    return table_rows(db, crawl_id)


@pytest.fixture()
def first_crawl(tmp_path: Path) -> Path:
    db = tmp_path / "site.duckdb"
    store_crawl(db, "c1", titles())
    assert summarise(db, "c1") == {"reused": 0, "recomputed": N_PAGES, "reused_from": set()}
    return db


def test_unchanged_recrawl_copies_every_row_of_a_full_recomputation(first_crawl, tmp_path):
    store_crawl(first_crawl, "c2", titles())
    assert summarise(first_crawl, "c2") == {
        "reused": N_PAGES,
        "recomputed": 0,
        "reused_from": {"c1"},
    }
    got = table_rows(first_crawl, "c2")
    assert got == full_recomputation(tmp_path, "c2", titles())
    assert got == table_rows(first_crawl, "c1")
    # The copied rows are real content: sentences with offsets and the in-text link.
    assert len(got["page_summaries"]) == N_PAGES and len(got["page_sentences"]) > 6 * N_PAGES
    links = {(r[1], r[2], r[3]) for r in got["page_text_links"]}
    assert ("http://site.test/p0/", f"{SITE}p1/", "guide to topic 1") in links
    assert {r[3] for r in got["page_summaries"]} == {f"Topic {i}" for i in range(N_PAGES)}


def test_one_edited_page_is_the_only_one_recomputed(first_crawl, tmp_path):
    edits = {2: "A new closing sentence about walnut groves was added today."}
    store_crawl(first_crawl, "c2", titles(), edits)
    assert summarise(first_crawl, "c2") == {"reused": 5, "recomputed": 1, "reused_from": {"c1"}}
    got = table_rows(first_crawl, "c2")
    assert got == full_recomputation(tmp_path, "c2", titles(), edits)
    edited = [r for r in got["page_summaries"] if r[1] == f"{SITE}p2/"][0]
    assert "walnut groves was added today" in edited[6]  # main_text


def test_a_changed_site_affix_recomputes_an_unchanged_page(first_crawl, tmp_path):
    # Five pages change their site name: "Acme" is no longer an affix, so page 0's cleaned
    # title changes although its HTML did not. The reuse key sees it; a content hash would not.
    renamed = titles(affix="Globex", changed={0: "Topic 0 | Acme"})
    store_crawl(first_crawl, "c2", renamed)
    assert summarise(first_crawl, "c2") == {"reused": 0, "recomputed": 6, "reused_from": {"c1"}}
    got = table_rows(first_crawl, "c2")
    assert got == full_recomputation(tmp_path, "c2", renamed)
    by_url = {r[1]: r[3] for r in got["page_summaries"]}  # url -> cleaned title
    assert by_url[f"{SITE}p0/"] == "Topic 0 - Acme"
    assert by_url[f"{SITE}p1/"] == "Topic 1"
    # Back to the old affix: page 0 is reused from c2 only if its cleaned title matches again.
    store_crawl(first_crawl, "c3", renamed | {0: "Topic 0 | Acme"})
    assert summarise(first_crawl, "c3")["reused"] == N_PAGES


def test_rows_of_another_extractor_are_extracted_again(first_crawl, tmp_path):
    # c1's rows as an older linkpipe (or trafilatura) wrote them: unchanged HTML is not enough
    with open_db(first_crawl) as con:
        con.execute("UPDATE page_summaries SET extractor = 'older' WHERE url <> ?", [f"{SITE}p0/"])
    store_crawl(first_crawl, "c2", titles())
    assert summarise(first_crawl, "c2") == {"reused": 1, "recomputed": 5, "reused_from": {"c1"}}
    got = table_rows(first_crawl, "c2")
    assert got == full_recomputation(tmp_path, "c2", titles())
    assert {r[-2] for r in got["page_summaries"]} == {extractor_digest()}  # then text_key


def test_another_site_and_later_crawls_are_never_the_previous_crawl(first_crawl):
    with open_db(first_crawl) as con:
        execute(con, "write/upsert_crawl", ["other", "http://other.test/", "crawler", "", "{}"])
    store_crawl(first_crawl, "c2", titles())
    with open_db(first_crawl) as con:  # the same pages, but registered under another site
        con.execute("UPDATE crawls SET start_url = 'http://other.test/' WHERE crawl_id = 'c1'")
    assert summarise(first_crawl, "c2")["reused_from"] == set()
    with open_db(first_crawl) as con:
        con.execute("UPDATE crawls SET start_url = ? WHERE crawl_id = 'c1'", [SITE])
    # c1 re-run: c2 (registered later) is not "previous", so c1 is recomputed.
    assert summarise(first_crawl, "c1") == {"reused": 0, "recomputed": 6, "reused_from": set()}
