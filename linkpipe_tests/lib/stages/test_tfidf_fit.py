"""site_models keeps the TF-IDF statistics of the previous crawl while few pages changed since
their fit, and refits when many did or when the fit's pages are gone."""

import shutil

import pytest

from linkpipe.lib.stages import site_index
from linkpipe.lib.stages.site_models import REFIT_SHARE, load_site_models, materialize_site_models
from linkpipe.lib.storage import open_db
from linkpipe.lib.text.lexical_index import IndexSettings
from linkpipe_tests.graph import crawl_and_run

EDIT = " The quokka archive keeps a zebra ledger and its XML Sitemap."


@pytest.fixture(scope="module")
def fitted_db(tmp_path_factory, demo_site, fake_model):
    """The demo site up to ann_index, with its site models (crawl c1)."""
    db = tmp_path_factory.mktemp("tfidf-fit") / "linkpipe.duckdb"
    crawl_and_run(db, "c1", demo_site.base_url + "/", fake_model, 300, until="ann_index")
    materialize_site_models(db, "c1")
    return db


def _rows(db, sql, *params):
    with open_db(db) as con:
        return con.execute(sql, list(params)).fetchall()


def _next_crawl(db, previous: str, crawl_id: str, edited: int) -> list[str]:
    """A crawl ``crawl_id`` of the same pages and links as ``previous``, an hour later, with a
    sentence added to the main text of the first ``edited`` pages; their URLs."""
    with open_db(db) as con:
        con.execute(
            "INSERT INTO crawls SELECT * REPLACE (?::VARCHAR AS crawl_id, "
            "created_at + INTERVAL 1 HOUR AS created_at) FROM crawls WHERE crawl_id = ?",
            [crawl_id, previous],
        )
        for table in ("page_summaries", "link_edges"):
            con.execute(
                f"INSERT INTO {table} SELECT * REPLACE (?::VARCHAR AS crawl_id) FROM {table} "
                "WHERE crawl_id = ?",
                [crawl_id, previous],
            )
        urls = [
            r[0]
            for r in con.execute(
                "SELECT url FROM page_summaries WHERE crawl_id = ? AND summary <> '' "
                "ORDER BY url LIMIT ?",
                [crawl_id, edited],
            ).fetchall()
        ]
        con.execute(
            "UPDATE page_summaries SET main_text = main_text || ? "
            "WHERE crawl_id = ? AND url IN (SELECT unnest(?::VARCHAR[]))",
            [EDIT, crawl_id, urls],
        )
    return urls


def _pages(db, crawl_id: str) -> int:
    return _rows(db, "SELECT n_pages FROM site_models WHERE crawl_id = ?", crawl_id)[0][0]


def _terms(db, crawl_id: str) -> list[tuple]:
    return _rows(
        db, "SELECT term_id, term, doc_freq, idf FROM site_terms WHERE crawl_id = ? "
        "ORDER BY term_id", crawl_id,
    )  # fmt: skip


def _models(db, crawl_id: str) -> dict[str, list[tuple]]:
    """Every row of the four site_* tables but the time the build took."""
    tables = {
        # the recall is measured by a build, and kept by an update (tested below)
        "site_models": "* EXCLUDE (crawl_id, build_seconds, lexical_recall_at_k, "
        "recall_queries, recall_measured_in)",
        "site_terms": "* EXCLUDE (crawl_id)",
        "site_page_terms": "* EXCLUDE (crawl_id)",
        "site_names": "* EXCLUDE (crawl_id)",
    }
    return {
        t: _rows(db, f"SELECT {columns} FROM {t} WHERE crawl_id = ? ORDER BY ALL", crawl_id)
        for t, columns in tables.items()
    }


def _page_rows(db, crawl_id: str) -> dict[str, tuple]:
    rows = _rows(
        db, "SELECT url, term_ids, weights FROM site_page_terms WHERE crawl_id = ?", crawl_id
    )
    return {url: (ids, weights) for url, ids, weights in rows}


def test_a_refresh_with_few_edits_keeps_the_statistics_of_the_fit(fitted_db, tmp_path):
    db = shutil.copy(fitted_db, tmp_path / "k.duckdb")
    edited = _next_crawl(db, "c1", "c2", 2)
    with open_db(db) as con:  # and a page stops linking one it linked in its content
        source, target = con.execute(
            "SELECT source_url, resolved_url FROM link_edges WHERE crawl_id = 'c2' "
            "AND position = 'content' AND source_url NOT IN (SELECT unnest(?::VARCHAR[])) "
            "ORDER BY ALL LIMIT 1",
            [edited],
        ).fetchone()
        con.execute(
            "DELETE FROM link_edges WHERE crawl_id = 'c2' AND source_url = ? AND resolved_url = ?",
            [source, target],
        )
    result = materialize_site_models(db, "c2")
    assert (result.meta["fitted_in"], result.meta["fit_pages"]) == ("c1", _pages(db, "c1"))
    # c1's models updated by the three pages that changed: the models of a build from scratch
    assert result.meta["updated_from"] == "c1"
    # the unedited pages' rows are c1's, copied by SQL (not encoded and written again)
    assert result.meta["page_rows_kept"] == _pages(db, "c2") - len(edited)
    updated = _models(db, "c2")
    rebuilt = materialize_site_models(db, "c2", reuse=False)
    assert rebuilt.meta["updated_from"] == "" and _models(db, "c2") == updated
    # the edits mention "XML Sitemap": the glossary page's name is counted on more pages
    mentioned = (
        "SELECT mentioned_by FROM site_names WHERE crawl_id = ? AND name_key = 'xml sitemap'"
    )
    assert _rows(db, mentioned, "c2")[0][0] > _rows(db, mentioned, "c1")[0][0]
    assert _terms(db, "c2") == _terms(db, "c1")  # vocabulary, document frequencies, IDF
    before, after = _page_rows(db, "c1"), _page_rows(db, "c2")
    assert set(before) == set(after)
    changed = {url for url in after if after[url] != before[url]}
    assert changed == set(edited)  # every unchanged page keeps its row, to the last bit
    # the stems the edit brought ("quokka", "zebra") are not in the kept vocabulary
    assert not _rows(db, "SELECT term FROM site_terms WHERE crawl_id = 'c2' AND term = 'quokka'")
    models = load_site_models(db, "c2")
    assert models.tfidf.fit_pages == _pages(db, "c1")

    # the next crawl compares with the crawl of the fit (c1), not with c2: still kept
    _next_crawl(db, "c2", "c3", 2)
    assert materialize_site_models(db, "c3").meta["fitted_in"] == "c1"


def test_many_edits_or_a_pruned_fit_refit_the_statistics(fitted_db, tmp_path):
    db = shutil.copy(fitted_db, tmp_path / "r.duckdb")
    pages = _pages(db, "c1")
    too_many = int(REFIT_SHARE * pages) + 1
    _next_crawl(db, "c1", "c2", too_many)
    result = materialize_site_models(db, "c2")
    assert (result.meta["fitted_in"], result.meta["fit_pages"]) == ("c2", pages)
    assert _rows(db, "SELECT term FROM site_terms WHERE crawl_id = 'c2' AND term = 'quokka'")
    assert _terms(db, "c2") != _terms(db, "c1")

    # c3 equals c2, but the pages c2 was fitted on are gone (pruned): c3 keeps c2's fit only
    # while c2's summaries are there
    _next_crawl(db, "c2", "c3", 0)
    assert materialize_site_models(db, "c3").meta["fitted_in"] == "c2"
    with open_db(db) as con:
        con.execute("DELETE FROM page_summaries WHERE crawl_id = 'c2'")
    assert materialize_site_models(db, "c3").meta["fitted_in"] == "c3"


def test_an_unchanged_refresh_copies_the_models_of_its_fit(fitted_db, tmp_path):
    db = shutil.copy(fitted_db, tmp_path / "u.duckdb")
    _next_crawl(db, "c1", "c2", 0)
    result = materialize_site_models(db, "c2")
    assert result.meta["copied_from"] == "c1"  # same inputs, same statistics: nothing refitted
    assert _page_rows(db, "c2") == _page_rows(db, "c1")
    assert _rows(db, "SELECT fitted_in FROM site_models WHERE crawl_id = 'c2'") == [("c1",)]


def _rename(db, crawl_id: str, title: str, skip: tuple[str, ...] = ()) -> str:
    """Give the first summarised page of the crawl (but ``skip``) another title; its URL."""
    with open_db(db) as con:
        url = con.execute(
            "SELECT min(url) FROM page_summaries WHERE crawl_id = ? AND summary <> '' "
            "AND url NOT IN (SELECT unnest(?::VARCHAR[]))",
            [crawl_id, list(skip)],
        ).fetchone()[0]
        con.execute(
            "UPDATE page_summaries SET title = ? WHERE crawl_id = ? AND url = ?",
            [title, crawl_id, url],
        )
    return url


def test_a_refresh_whose_names_changed_counts_them_on_the_pages_that_may_hold_them(
    fitted_db, tmp_path
):
    db = shutil.copy(fitted_db, tmp_path / "n.duckdb")
    _next_crawl(db, "c1", "c2", 0)
    # a page is renamed after words another page holds: those pages are read for the name
    text = _rows(db, "SELECT main_text FROM page_summaries WHERE crawl_id = 'c2' "
                 "AND main_text ILIKE '%internal link%' ORDER BY url LIMIT 1")[0][0]  # fmt: skip
    assert "internal link" in text.lower()
    _rename(db, "c2", "Internal links")
    result = materialize_site_models(db, "c2")
    assert result.meta["fitted_in"] == "c1" and result.meta["updated_from"] == "c1"
    assert result.meta["names_recounted"] >= 1
    assert 0 < result.meta["pages_reread"] < _pages(db, "c2") // 2
    updated = _models(db, "c2")
    rebuilt = materialize_site_models(db, "c2", reuse=False)
    assert rebuilt.meta["updated_from"] == "" and _models(db, "c2") == updated
    mentioned = _rows(db, "SELECT mentioned_by FROM site_names WHERE crawl_id = 'c2' AND "
                      "name_key = 'internal link'")  # fmt: skip
    assert mentioned and mentioned[0][0] > 1


def test_a_name_of_words_new_since_the_fit_is_counted_on_the_pages_changed_since(
    fitted_db, tmp_path
):
    db = shutil.copy(fitted_db, tmp_path / "q.duckdb")
    edited = _next_crawl(db, "c1", "c2", 2)  # two pages now say "... keeps a zebra ledger ..."
    assert materialize_site_models(db, "c2").meta["updated_from"] == "c1"
    _next_crawl(db, "c2", "c3", 0)
    _rename(db, "c3", "Zebra ledger", skip=tuple(edited))  # words c1's statistics never saw
    assert not _rows(db, "SELECT term FROM site_terms WHERE crawl_id = 'c1' "
                     "AND term IN ('zebra', 'ledger')")  # fmt: skip
    result = materialize_site_models(db, "c3")
    assert result.meta["fitted_in"] == "c1" and result.meta["updated_from"] == "c2"
    # the pages whose text changed since c1 are the two edited ones (the renamed page is
    # counted as it is now): only they are read for the new name
    assert result.meta["names_recounted"] >= 1 and result.meta["pages_reread"] == 2
    named = "SELECT mentioned_by FROM site_names WHERE crawl_id = 'c3' AND name_key = ?"
    assert _rows(db, named, "zebra ledger") == [(2,)]
    updated = _models(db, "c3")
    materialize_site_models(db, "c3", reuse=False)
    assert _models(db, "c3") == updated


def test_a_name_of_words_on_most_pages_counts_every_page_again(fitted_db, tmp_path):
    db = shutil.copy(fitted_db, tmp_path / "w.duckdb")
    common = _rows(db, "SELECT term FROM site_terms WHERE crawl_id = 'c1' AND idf IS NULL "
                   "AND term NOT IN ('the', 'a') AND regexp_matches(term, '^[a-z]{5,}$') "
                   "ORDER BY doc_freq DESC, term LIMIT 1")  # fmt: skip
    assert common  # a word on more than half of the pages: not weighed, any page may hold it
    _next_crawl(db, "c1", "c2", 0)
    _rename(db, "c2", common[0][0].capitalize())
    result = materialize_site_models(db, "c2")
    assert result.meta["fitted_in"] == "c1" and result.meta["updated_from"] == ""
    named = "SELECT count(*) FROM site_names WHERE crawl_id = 'c2' AND name_key = ?"
    assert _rows(db, named, common[0][0]) == [(1,)]


def _measure(db, crawl_id: str) -> tuple:
    return _rows(
        db, "SELECT posting_cap, rerank, query_terms, lexical_recall_at_k, recall_queries, "
        "recall_measured_in FROM site_models WHERE crawl_id = ?", crawl_id,
    )[0]  # fmt: skip


def test_an_update_keeps_the_index_and_recall_a_build_measured(fitted_db, tmp_path, monkeypatch):
    db = shutil.copy(fitted_db, tmp_path / "i.duckdb")
    narrow = IndexSettings(posting_cap=3, rerank=5)  # widened by the build's tuning
    built = materialize_site_models(db, "c1", narrow)
    assert built.meta["recall_measured_in"] == "c1" and built.meta["posting_cap"] > 3
    measured = _measure(db, "c1")
    assert measured[4] == _pages(db, "c1")  # every page of the small site sampled
    _next_crawl(db, "c1", "c2", 2)

    def not_measured(*args, **kwargs):
        raise AssertionError("the update measured the index again")

    monkeypatch.setattr(site_index, "tune_index", not_measured)
    result = materialize_site_models(db, "c2", narrow)
    assert result.meta["updated_from"] == "c1"
    assert _measure(db, "c2") == measured  # c1's settings, recall and sample, measured on c1
    assert load_site_models(db, "c2").index.settings == IndexSettings(*measured[:3])
    _next_crawl(db, "c2", "c3", 2)
    assert materialize_site_models(db, "c3", narrow).meta["recall_measured_in"] == "c1"
    monkeypatch.undo()
    # settings the tuning from another start cannot reach are measured again
    wide = IndexSettings(posting_cap=4096, rerank=900)
    again = materialize_site_models(db, "c3", wide)
    assert again.meta["updated_from"] == "c2" and again.meta["recall_measured_in"] == "c3"
    assert again.meta["posting_cap"] == 4096
    # a build (the update not allowed) measures its own
    rebuilt = materialize_site_models(db, "c2", narrow, reuse=False)
    assert rebuilt.meta["recall_measured_in"] == "c2" and rebuilt.meta["updated_from"] == ""
