"""The main texts of source pages with their sentences and existing-link spans
(:class:`~linkpipe.lib.links.anchors.SourceText`), as anchor placement reads them: a shard's
(the candidate step) or some pages' (the kept pairs' sources, see :mod:`kept_anchors`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import duckdb

from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.storage import SqlParams, fetch_dicts


def shard_source_texts(
    con: duckdb.DuckDBPyConnection, crawl_id: str, shard: int
) -> dict[str, SourceText]:
    """The source texts of the shard's pages."""
    queries = ("select_shard_source_texts", "select_shard_sentences", "select_shard_text_links")
    return _source_texts(con, queries, [crawl_id, shard])


def source_texts_of(
    con: duckdb.DuckDBPyConnection, crawl_id: str, urls: Sequence[str]
) -> dict[str, SourceText]:
    """The source texts of the pages ``urls`` (those with a summary)."""
    queries = (
        "select_source_texts_of_pages",
        "select_sentences_of_pages",
        "select_text_links_of_pages",
    )
    return _source_texts(con, queries, [crawl_id, list(urls)]) if urls else {}


def _source_texts(
    con: duckdb.DuckDBPyConnection, queries: tuple[str, str, str], params: SqlParams
) -> dict[str, SourceText]:
    """The source texts of the rows of ``queries`` (texts, sentences, link spans)."""
    texts = {r["url"]: r["main_text"] or "" for r in fetch_dicts(con, f"read/{queries[0]}", params)}
    sentences: dict[str, list[tuple[int, int, int, str]]] = defaultdict(list)
    for r in fetch_dicts(con, f"read/{queries[1]}", params):
        sentences[r["url"]].append(
            (r["paragraph_idx"], r["start_offset"], r["end_offset"], r["block_kind"])
        )
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for r in fetch_dicts(con, f"read/{queries[2]}", params):
        spans[r["url"]].append((r["start_offset"], r["end_offset"]))
    return {u: SourceText(t, sentences[u], spans[u]) for u, t in texts.items()}
