"""The Dagster definitions that `dagster dev` loads: assets, partitions, pool, sensor."""

import dagster as dg

from linkpipe.definitions import defs

EXPECTED = {
    "crawl_export",
    "indexable_pages",
    "link_graph",
    "page_summaries",
    "page_embeddings",
    "ann_index",
    "site_models",
    "candidate_pairs",
    "link_opportunities",
    "topic_clusters",
    "published_snapshot",
}


def test_asset_graph_and_partitions():
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert keys == EXPECTED
    page_level = {"page_summaries", "page_embeddings", "candidate_pairs"}
    for key in keys:
        node = graph.get(dg.AssetKey(key))
        partitions = node.partitions_def
        if key in page_level:
            assert isinstance(partitions, dg.MultiPartitionsDefinition)
            assert {d.name for d in partitions.partitions_defs} == {"crawl", "shard"}
        else:
            assert (
                isinstance(partitions, dg.DynamicPartitionsDefinition)
                and partitions.name == "crawls"
            )
        # Site-level assets share the writer pool; shards run in parallel processes instead.
        assert node.pools == (set() if key in page_level else {"linkpipe_duckdb_writer"})
    parents = {k.to_user_string() for k in graph.get(dg.AssetKey("link_opportunities")).parent_keys}
    assert parents == {"candidate_pairs", "link_graph"}
    parents = {k.to_user_string() for k in graph.get(dg.AssetKey("candidate_pairs")).parent_keys}
    assert parents == {"page_embeddings", "ann_index", "site_models", "link_graph"}
    parents = {k.to_user_string() for k in graph.get(dg.AssetKey("site_models")).parent_keys}
    assert parents == {"page_summaries", "link_graph"}
    assert defs.resolve_sensor_def("nightly_recrawl") is not None


def test_nightly_sensor_registers_todays_crawl(tmp_path):
    import datetime as dt

    import duckdb

    from linkpipe.defs.automation import nightly_recrawl
    from linkpipe.defs.resources import LinkpipeSettings
    from linkpipe.lib.stages.crawl_export import register_crawl

    db = tmp_path / "n.duckdb"
    instance = dg.DagsterInstance.ephemeral()
    settings = LinkpipeSettings(db_path=str(db))
    empty = nightly_recrawl(
        dg.build_sensor_context(instance=instance, resources={"settings": settings})
    )
    assert isinstance(empty, dg.SkipReason)
    register_crawl(db, "first", "http://s.test/", "crawler", "", {"max_pages": 7})
    result = nightly_recrawl(
        dg.build_sensor_context(instance=instance, resources={"settings": settings})
    )
    today = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    assert [r.partition_key for r in result.run_requests] == [today]
    assert result.dynamic_partitions_requests[0].partition_keys == [today]
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute(
        "SELECT start_url, config_json FROM crawls WHERE crawl_id = ?", [today]
    ).fetchall() == [("http://s.test/", '{"max_pages": 7}')]
    con.close()
