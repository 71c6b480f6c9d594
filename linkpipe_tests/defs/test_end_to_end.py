"""The whole asset graph, materialized for real on the demo site with the real model."""

import duckdb
import pytest

from linkpipe.defs.runner import instance_for, run_graph
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.value.decisions import Decision, save_decisions
from linkpipe.lib.value.signals import read_signals_csv, save_signals
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory, demo_site):
    tmp = tmp_path_factory.mktemp("e2e")
    db = tmp / "linkpipe.duckdb"
    start = demo_site.base_url + "/"
    register_crawl(db, "crawl-1", start, "crawler", "", {"max_pages": 300})
    run_graph(db, "crawl-1", DEFAULT_MODEL)
    # between the crawls an editor rejects the best suggestion and a priority list arrives
    con = duckdb.connect(str(db))
    rejected = con.execute("""SELECT source_url, target_url FROM link_opportunities
                              WHERE crawl_id = 'crawl-1' ORDER BY score DESC LIMIT 1""").fetchone()
    con.close()
    save_decisions(db, [Decision(*rejected, "rejected", "editor")], "crawl-1")
    (tmp / "priority.csv").write_text("url\n" + start + "services/seo-copywriting/\n")
    save_signals(db, "priority", read_signals_csv(tmp / "priority.csv", "priority"), "priority.csv")
    register_crawl(db, "crawl-2", start, "crawler", "", {"max_pages": 300})
    run_graph(db, "crawl-2", DEFAULT_MODEL)
    con = duckdb.connect(str(db), read_only=True)
    yield con, demo_site.base_url, db
    con.close()


def q(con, sql, *params):
    return con.execute(sql, list(params)).fetchall()


def test_every_asset_wrote_rows_for_both_crawls(demo_db):
    con, _, _ = demo_db
    for table in (
        "crawl_pages",
        "crawl_links",
        "indexable_pages",
        "page_summaries",
        "page_sentences",
        "page_embeddings",
        "ann_indexes",
        "link_edges",
        "page_link_metrics",
        "candidate_pairs",
        "link_opportunities",
        "topic_clusters",
    ):
        counts = dict(q(con, f"SELECT crawl_id, count(*) FROM {table} GROUP BY ALL"))
        assert counts.get("crawl-1", 0) > 0 and counts.get("crawl-2", 0) > 0, table
        if table != "link_opportunities":  # the second crawl has one rejected pair fewer
            assert counts["crawl-1"] == counts["crawl-2"], table
    (n_pages,) = q(
        con, "SELECT count(*) FROM crawl_pages WHERE crawl_id = 'crawl-1' AND status = 200"
    )[0]
    assert n_pages >= 64
    assert q(con, "SELECT count(DISTINCT shard) FROM page_summaries WHERE crawl_id='crawl-1'") == [
        (4,)
    ]


def test_excluded_pages_have_their_reasons_and_never_appear(demo_db, demo_expectations):
    con, base, _ = demo_db
    reasons = dict(
        q(con, "SELECT url, reason FROM indexable_pages WHERE crawl_id='crawl-1' AND NOT indexable")
    )
    for path, reason in demo_expectations["excluded"].items():
        assert reasons.get(base + path) == reason, path
    assert all(reasons.values())
    used = q(
        con,
        """SELECT count(*) FROM link_opportunities o JOIN indexable_pages i
                     ON i.crawl_id = o.crawl_id AND NOT i.indexable
                     AND (i.url = o.source_url OR i.url = o.target_url)""",
    )
    assert used == [(0,)]
    assert q(con, "SELECT count(*) FROM v_excluded_pages WHERE reason IS NULL") == [(0,)]


def test_orphan_and_deep_pages(demo_db, demo_expectations):
    con, base, _ = demo_db
    orphan = base + demo_expectations["orphan"]
    assert q(
        con,
        "SELECT is_orphan, in_sitemap FROM page_link_metrics WHERE crawl_id='crawl-1' AND url=?",
        orphan,
    ) == [(True, True)]
    assert (orphan,) in q(con, "SELECT url FROM v_orphan_pages")
    suggested = q(
        con,
        "SELECT count(*) FROM link_opportunities WHERE crawl_id='crawl-1' AND target_url=?",
        orphan,
    )
    assert suggested[0][0] >= 1
    deep = base + demo_expectations["deep_page"]
    assert q(
        con,
        "SELECT click_depth, is_deep FROM page_link_metrics WHERE crawl_id='crawl-1' AND url=?",
        deep,
    ) == [(5, True)]


def test_related_pairs_with_different_words_are_found_with_real_anchors(demo_db, demo_expectations):
    con, base, _ = demo_db
    found = 0
    for pair in demo_expectations["related_pairs"]:
        rows = q(
            con,
            """SELECT o.anchor_text, o.anchor_start, o.anchor_end, o.sentence, s.main_text, o.reason
                         FROM link_opportunities o JOIN page_summaries s
                         ON s.crawl_id = o.crawl_id AND s.url = o.source_url
                         WHERE o.crawl_id='crawl-1' AND o.source_url=? AND o.target_url=?""",
            base + pair["source"],
            base + pair["target"],
        )
        if not rows:
            continue
        found += 1
        anchor, start, end, sentence, main_text, reason = rows[0]
        assert reason and len(reason.split()) <= 25 and "no content link" not in reason
        if anchor is not None:
            assert main_text[start:end] == anchor
            assert anchor in sentence and sentence in main_text
    assert found >= 0.8 * len(demo_expectations["related_pairs"])
    # the flagship vocabulary-gap pair: semantic, not keyword, evidence. It ranks first among
    # the pairs the source does not name; only a page it names, with a name the site links
    # where it is written ("permanent redirect" -> the glossary entry), may rank above it.
    zombie = q(
        con,
        """SELECT rank, anchor_text, target_url, mention_phrase, mention_score
           FROM link_opportunities WHERE crawl_id='crawl-1' AND source_url=? ORDER BY rank""",
        base + "/blog/zombie-pages/",
    )
    gap = [r for r in zombie if r[2] == base + "/guides/content-pruning/"]
    assert [(r[1], r[3], r[4]) for r in gap] == [("removing low-quality pages", None, 0.0)]
    above = [r for r in zombie if r[0] < gap[0][0]]
    assert [(r[2], r[3]) for r in above] == [
        (base + "/glossary/301-redirect/", "permanent redirect")
    ]
    assert above[0][4] > 0.5


def test_no_suggestion_repeats_an_existing_content_link(demo_db):
    con, _, _ = demo_db
    assert q(
        con,
        """SELECT count(*) FROM link_opportunities o JOIN link_edges e
                     ON e.crawl_id = o.crawl_id AND e.source_url = o.source_url
                     AND e.resolved_url = o.target_url AND e.position = 'content'""",
    ) == [(0,)]
    rows = q(con, "SELECT source_url, rank FROM v_opportunities ORDER BY source_url, rank")
    by_source = {}
    for source, rank in rows:
        by_source.setdefault(source, []).append(rank)
    assert all(ranks == list(range(1, len(ranks) + 1)) for ranks in by_source.values())


def test_weights_are_learned_from_the_sites_own_links_and_stored(demo_db):
    con, _, db = demo_db
    # every labelled row is a pair the source links in content, and never a suggestion
    assert q(
        con,
        """SELECT count(*) FROM candidate_pairs c WHERE c.already_linked_content AND NOT EXISTS (
               SELECT 1 FROM link_edges e WHERE e.crawl_id = c.crawl_id AND e.position = 'content'
               AND e.source_url = c.source_url AND e.resolved_url = c.target_url)""",
    ) == [(0,)]
    labelled = dict(
        q(
            con,
            """SELECT c.crawl_id, count(*) FILTER (WHERE c.already_linked_content)
               FROM candidate_pairs c
               JOIN indexable_pages s ON s.crawl_id = c.crawl_id AND s.url = c.source_url
               JOIN indexable_pages t ON t.crawl_id = c.crawl_id AND t.url = c.target_url
               WHERE s.indexable AND t.indexable AND c.source_url <> c.target_url GROUP BY ALL""",
        )
    )
    rows = q(con, "SELECT crawl_id, method, positives, reason FROM scoring_weights ORDER BY 1")
    assert [r[0] for r in rows] == ["crawl-1", "crawl-2"]
    for crawl_id, method, positives, reason in rows:
        assert positives == labelled[crawl_id] >= 50
        assert method in ("fitted", "default") and reason.startswith(
            "50% fitted on" if method == "fitted" else "defaults: "
        )
    (weights,) = q(
        con,
        "SELECT w_semantic + w_lexical + w_title + w_mention + w_graph FROM scoring_weights WHERE crawl_id = 'crawl-2'",
    )[0]
    assert abs(weights - 1.0) < 1e-3
    import dagster as dg

    event = instance_for(db).get_latest_materialization_event(dg.AssetKey("link_opportunities"))
    stored = event.asset_materialization.metadata["scoring_weights"].value
    assert stored["positives"] == labelled["crawl-2"] and stored["method"] == rows[1][1]


def test_second_crawl_reuses_cached_embeddings(demo_db):
    con, _, _ = demo_db
    hits = dict(q(con, "SELECT crawl_id, bool_and(cache_hit) FROM page_embeddings GROUP BY ALL"))
    assert hits == {"crawl-1": False, "crawl-2": True}
    first = q(
        con, "SELECT url, embedding FROM page_embeddings WHERE crawl_id='crawl-1' ORDER BY url"
    )
    second = q(
        con, "SELECT url, embedding FROM page_embeddings WHERE crawl_id='crawl-2' ORDER BY url"
    )
    assert first == second


def test_materializations_report_row_counts_and_previews(demo_db):
    _, _, db = demo_db
    import dagster as dg

    instance = instance_for(db)
    event = instance.get_latest_materialization_event(dg.AssetKey("link_opportunities"))
    meta = event.asset_materialization.metadata
    assert meta["dagster/row_count"].value > 0 and "preview" in meta
    assert event.asset_materialization.partition == "crawl-2"


def test_rejected_pair_never_returns_and_priority_pages_gain_value(demo_db):
    con, base, _ = demo_db
    (source, target) = q(
        con, "SELECT source_url, target_url FROM link_decisions WHERE decision='rejected'"
    )[0]
    assert q(
        con,
        "SELECT count(*) FROM link_opportunities WHERE crawl_id='crawl-1' AND source_url=? AND target_url=?",
        source,
        target,
    ) == [(1,)]
    assert q(
        con,
        "SELECT count(*) FROM link_opportunities WHERE crawl_id='crawl-2' AND source_url=? AND target_url=?",
        source,
        target,
    ) == [(0,)]
    priority = base + "/services/seo-copywriting/"
    rows = q(
        con,
        """SELECT business_value, reason FROM link_opportunities
                     WHERE crawl_id='crawl-2' AND target_url=?""",
        priority,
    )
    assert rows and all(v == 0.3 and "target is a priority page" in r for v, r in rows)
    before = q(
        con,
        "SELECT count(*) FROM link_opportunities WHERE crawl_id='crawl-1' AND business_value > 0",
    )
    assert before == [(0,)]


def test_published_snapshot_holds_the_latest_run(demo_db):
    con, _, db = demo_db
    published = db.with_name("linkpipe.published.duckdb")
    copy = duckdb.connect(str(published), read_only=True)
    try:
        ours = q(con, "SELECT crawl_id, count(*) FROM link_opportunities GROUP BY ALL ORDER BY 1")
        assert (
            q(copy, "SELECT crawl_id, count(*) FROM link_opportunities GROUP BY ALL ORDER BY 1")
            == ours
        )
    finally:
        copy.close()


def test_crawl_stats_are_stored_with_the_crawl(demo_db):
    con, _, _ = demo_db
    import json

    stats = json.loads(q(con, "SELECT crawl_stats FROM crawls WHERE crawl_id = 'crawl-2'")[0][0])
    assert stats["pages"] == 76 and stats["not_modified"] == 74  # the second crawl is conditional
    assert stats["revalidated_first"] == 74  # answered to the client before the spider started
    kept = q(
        con,
        """SELECT count(*), count(*) FILTER (b.content_hash = a.content_hash AND h.html_z NOT NULL)
           FROM crawl_pages b JOIN crawl_pages a ON a.url = b.url AND a.crawl_id = 'crawl-1'
           LEFT JOIN page_html h ON h.content_hash = b.content_hash
           WHERE b.crawl_id = 'crawl-2' AND b.not_modified AND b.html_z IS NULL""",
    )
    assert kept == [(74, 74)]  # every 304 keeps the previous crawl's HTML, stored once
    contents = q(
        con, "SELECT count(DISTINCT content_hash) FROM crawl_pages WHERE content_hash <> ''"
    )
    assert q(con, "SELECT count(*) FROM page_html") == contents
    assert stats["status"] == {"0": 1, "200": 74, "301": 1}
    assert stats["errors"] == {"robots_disallowed": 1} and stats["skipped"]["robots"] == 1


def _shard_metadata(db, asset: str, crawl_id: str) -> list[dict]:
    """The metadata of the latest materialization of each shard of a page-level asset."""
    import dagster as dg

    instance = instance_for(db)
    keys = [str(dg.MultiPartitionKey({"crawl": crawl_id, "shard": str(s)})) for s in range(4)]
    found = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=keys), limit=100
    ).records
    latest = {r.partition_key: r.asset_materialization.metadata for r in reversed(found)}
    assert sorted(latest) == sorted(keys)
    return [{k: v.value for k, v in meta.items()} for meta in latest.values()]


def _crawl_metadata(db, asset: str, crawl_id: str) -> dict:
    """The metadata of the latest materialization of a crawl-level asset."""
    import dagster as dg

    instance = instance_for(db)
    found = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[crawl_id]), limit=1
    ).records
    return {k: v.value for k, v in found[0].asset_materialization.metadata.items()}


def test_stages_report_what_their_models_cost(demo_db):
    # the first crawl runs the embedding model on summaries and, for the kept pairs' windows,
    # on anchor words, and parses the sentences its anchors are judged in (names in the
    # candidate step, windows in link_opportunities); the second finds every vector and parse
    # stored
    _, _, db = demo_db
    # (a parse the test process made earlier for the same sentences is taken from memory:
    # the parser's CPU may be 0 here, what was parsed for the database is not)
    first = _shard_metadata(db, "candidate_pairs", "crawl-1")
    assert all(m["parser_cpu_s"] >= 0 for m in first)
    assert all(m["embedder_cpu_s"] == 0 for m in first)  # names only: no word vectors
    assert sum(m["parses_stored"] for m in first) > 0
    kept = _crawl_metadata(db, "link_opportunities", "crawl-1")
    assert kept["embedder_cpu_s"] > 0.05 and kept["parser_cpu_s"] >= 0
    assert kept["placements_made"] > 0 and kept["placements_reused"] == 0  # a first crawl
    embedded = _shard_metadata(db, "page_embeddings", "crawl-1")
    assert all(m["embedded"] > 0 and m["embedder_cpu_s"] > 0.01 for m in embedded)
    again = _shard_metadata(db, "page_embeddings", "crawl-2")
    assert all(m["embedded"] == 0 and m["embedder_cpu_s"] == 0 for m in again)
    second = _shard_metadata(db, "candidate_pairs", "crawl-2")
    assert all(m["parser_cpu_s"] == 0 for m in second)
    # scored again (a decision, a priority list): the kept pairs' stored placements are taken
    again_kept = _crawl_metadata(db, "link_opportunities", "crawl-2")
    assert again_kept["placements_reused"] > 0.8 * kept["placements_made"]
