"""site_models on the demo site: built once, stored, and read by candidate shards that give the
same rows as a fresh build of every model."""

from dataclasses import replace

import numpy as np
import pytest

from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.mapped import mapped_root
from linkpipe.lib.stages import candidate_context as context
from linkpipe.lib.stages import candidate_pairs as stage
from linkpipe.lib.stages.ann_index import load_ann_index
from linkpipe.lib.stages.candidate_context import load_site_context
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.candidate_previous import page_digests as page_fact_digests
from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities
from linkpipe.lib.stages.site_models import (
    SiteModelsMissing,
    _texts,
    load_site_models,
    materialize_site_models,
)
from linkpipe.lib.stages.source_texts import shard_texts
from linkpipe.lib.storage import open_db
from linkpipe.lib.text.lexical_index import IndexSettings
from linkpipe.lib.vectors.ann import deserialize
from linkpipe_tests.graph import crawl_and_run

CRAWL = "c1"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory, demo_site, fake_model):
    """The demo site up to ann_index (the inputs of site_models and candidate_pairs)."""
    db = tmp_path_factory.mktemp("site-models") / "linkpipe.duckdb"
    crawl_and_run(db, CRAWL, demo_site.base_url + "/", fake_model, 300, until="ann_index")
    return db


def _rows(db, sql, *params):
    with open_db(db) as con:
        return con.execute(sql, list(params)).fetchall()


def test_shards_refuse_to_run_without_site_models(demo_db, fake_model) -> None:
    with pytest.raises(SiteModelsMissing, match="materialize site_models first"):
        materialize_candidate_pairs(demo_db, CRAWL, 0, fake_model)


def test_site_models_are_stored_once_per_crawl(demo_db) -> None:
    result = materialize_site_models(demo_db, CRAWL)
    [pages] = _rows(demo_db, "SELECT count(*) FROM page_summaries WHERE crawl_id = ?", CRAWL)
    assert result.rows["site_page_terms"] == pages[0] == result.meta["n_pages"]
    assert result.rows["site_models"] == 1
    assert result.meta["lexical_recall_at_k"] >= 0.95
    assert result.meta["recall_queries"] == pages[0]
    # the glossary's "XML Sitemap": 8 pages mention it (itself included), 4 of them link it
    assert _rows(
        demo_db,
        "SELECT phrase, kind, mentioned_by, linked_by, self_mention FROM site_names "
        "WHERE crawl_id = ? AND name_key = 'xml sitemap' AND target_url LIKE '%/glossary/%'",
        CRAWL,
    ) == [("XML Sitemap", "title", 8, 4, True)]
    # the vocabulary has what the pages say, with document frequencies of at most half the site;
    # the stems of more than half of the pages follow without IDF (not weighed, df kept)
    [(terms, max_df, common, min_common_df)] = _rows(
        demo_db,
        "SELECT count(*) FILTER (idf IS NOT NULL), max(doc_freq) FILTER (idf IS NOT NULL), "
        "count(*) FILTER (idf IS NULL), min(doc_freq) FILTER (idf IS NULL) "
        "FROM site_terms WHERE crawl_id = ?",
        CRAWL,
    )
    assert terms == result.meta["n_terms"] > 100 and max_df <= pages[0] / 2
    assert common > 0 and min_common_df > pages[0] / 2
    # a re-run replaces the partition, never duplicates it
    again = materialize_site_models(demo_db, CRAWL)
    assert again.rows == result.rows
    [(count,)] = _rows(demo_db, "SELECT count(*) FROM site_models WHERE crawl_id = ?", CRAWL)
    assert count == 1


def test_stored_models_give_the_rows_of_a_fresh_build(demo_db, fake_model) -> None:
    materialize_site_models(demo_db, CRAWL)
    stored = load_site_context(demo_db, CRAWL)
    texts = {p.url: p for p in _pages_with_text(demo_db)}
    fresh = SiteContext(
        [texts[p.url] for p in stored.pages],
        stored.vectors,
        stored.content_links,
        stored.nav_links,
        stored.known_anchors,
    )
    assert stored.models.tfidf.urls == fresh.models.tfidf.urls
    assert abs(stored.models.tfidf.matrix - fresh.models.tfidf.matrix).max() == 0
    assert dict(stored.mentions.mentioned_by) == dict(fresh.mentions.mentioned_by)
    assert dict(stored.mentions.linked_by) == dict(fresh.mentions.linked_by)
    written = 0
    for shard in range(DEFAULT_SHARDS):
        result = materialize_candidate_pairs(demo_db, CRAWL, shard, fake_model)
        written += result.rows["candidate_pairs"]
        sources = shard_texts(demo_db, CRAWL, shard)
        ann = load_ann_index(demo_db, CRAWL)
        expected = stage.shard_candidates(fresh, ann, sources, shard, 20)
        got = stage.shard_candidates(stored, ann, sources, shard, 20)
        assert got == expected and len(got) > 20
        # texts read a few sources at a time: the same rows
        assert stage.shard_candidates(stored, ann, replace(sources, chunk=3), shard, 20) == got
    [(count,)] = _rows(demo_db, "SELECT count(*) FROM candidate_pairs WHERE crawl_id = ?", CRAWL)
    assert count == written > 0


def _pages_with_text(db):
    return list(_texts(db, CRAWL, 0))


def test_shards_use_the_index_settings_stored_with_the_models(demo_db) -> None:
    # an index too narrow for its recall target is widened, and shards use the widened one
    result = materialize_site_models(demo_db, CRAWL, IndexSettings(posting_cap=3, rerank=5))
    cap, rerank, terms = (result.meta[k] for k in ("posting_cap", "rerank", "query_terms"))
    assert (cap, rerank, terms) in [(12, 10, 64), (48, 20, 64), (192, 40, 64)]
    assert result.meta["lexical_recall_at_k"] >= 0.95 or cap == 192
    assert load_site_models(demo_db, CRAWL).index.settings == IndexSettings(cap, rerank, terms)
    assert _rows(
        demo_db,
        "SELECT posting_cap, rerank, query_terms FROM site_models WHERE crawl_id = ?",
        CRAWL,
    ) == [(cap, rerank, terms)]
    materialize_site_models(demo_db, CRAWL)
    assert load_site_models(demo_db, CRAWL).index.settings == IndexSettings()


def test_shards_of_one_process_share_the_site_context_while_its_inputs_stay(
    demo_db, fake_model, monkeypatch
) -> None:
    materialize_site_models(demo_db, CRAWL)
    context.release_site_context(demo_db, CRAWL)  # what earlier tests left held
    read = []

    def page_digests(con, crawl_id):  # noqa: ANN001, ANN202
        read.append(crawl_id)
        return page_fact_digests(con, crawl_id)

    monkeypatch.setattr(stage, "page_digests", page_digests)
    materialize_candidate_pairs(demo_db, CRAWL, 0, fake_model, reuse=False)
    first = context._held[0].site
    with open_db(demo_db) as con:
        assert context._held[0].digests == {CRAWL: page_fact_digests(con, CRAWL)}
    assert read == [CRAWL] and len(context._held[0].digests[CRAWL]) == len(first.pages)
    assert first.models.index.settings == IndexSettings()
    # its arrays are mapped from the files every process of the machine shares
    mapped = [p for p in mapped_root(demo_db).iterdir() if (p / "vectors.npy").exists()]
    assert len(mapped) == 1  # with the ANN index's folder beside it
    assert isinstance(first.vectors, np.memmap) and first.vectors.shape[0] == len(first.pages)
    for matrix in (first.models.tfidf.matrix, first.models.index.postings.blocks):
        parts = (matrix.data, matrix.indices, matrix.indptr)
        assert not any(a.flags.writeable for a in parts)  # views of the read-only mapping
    # the ANN index too, from a file of its stored bytes: it finds what the stored bytes find
    ann = load_ann_index(demo_db, CRAWL)
    [(blob, urls, kind)] = _rows(
        demo_db, "SELECT index_blob, urls, index_kind FROM ann_indexes WHERE crawl_id = ?", CRAWL
    )
    stored = deserialize(blob, urls, kind, 1.0, 10, 0.0)
    assert ann.urls == urls and ann.kind == kind
    assert (ann.search(first.vectors, 5)[1] == stored.search(first.vectors, 5)[1]).all()
    assert len([p for p in mapped_root(demo_db).iterdir() if p.is_dir()]) == 2
    assert ann.index.ntotal == len(urls)
    materialize_candidate_pairs(demo_db, CRAWL, 1, fake_model, reuse=False)
    assert context._held[0].site is first  # loaded once, profiles computed once
    assert len(first._profiles) > 0
    assert read == [CRAWL]  # the page fact digests too
    # new site models are a new input: the next shard loads the context again
    materialize_site_models(demo_db, CRAWL, IndexSettings(posting_cap=3, rerank=5))
    materialize_candidate_pairs(demo_db, CRAWL, 2, fake_model, reuse=False)
    second = context._held[0].site
    assert second is not first and second.models.index.settings.posting_cap > 3
    assert read == [CRAWL, CRAWL]  # read again with the new context
    assert len(context._held) == 1  # one context held at a time
    now = [p for p in mapped_root(demo_db).iterdir() if p.is_dir()]
    assert len(now) == 2 and mapped[0] not in now  # the context's replaced, the ANN's kept
    materialize_link_opportunities(demo_db, CRAWL, fake_model)
    assert context._held == []  # scoring drops it once its pairs are placed, and the files
    assert not mapped_root(demo_db).exists()
    materialize_site_models(demo_db, CRAWL)  # as the other tests expect
