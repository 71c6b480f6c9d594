"""The main texts of source pages with their sentences and existing-link spans
(:class:`~linkpipe.lib.links.anchors.SourceText`), as anchor placement reads them: a shard's
(the candidate step) or some pages' (the kept pairs' sources, see :mod:`kept_anchors`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.storage import SqlParams, fetch_dicts, fetch_frame, memory_limit, open_db

# the reads scan the crawl's texts, sentences and link spans: without a limit DuckDB held ~550 MB
# of them at 100k pages until the connection closed (256 MB: ~260, no slower)
READ_MEMORY = "256MB"
TEXT_CHUNK = 4_096  # sources whose texts a shard holds at once (a shard of 100k pages: 25k)


@dataclass(frozen=True)
class ShardTexts:
    """A shard's sources in order with the length of each one's main text (``lengths``), their
    texts read ``chunk`` sources at a time (``read``): a worker holds one chunk's texts, with
    their sentences and link spans, not the shard's."""

    lengths: dict[str, int]
    read: Callable[[list[str]], dict[str, SourceText]]
    chunk: int = TEXT_CHUNK

    def chunks(self) -> Iterator[dict[str, SourceText]]:
        """The sources' texts, a chunk at a time, in order."""
        urls = list(self.lengths)
        for first in range(0, len(urls), self.chunk):
            yield self.read(urls[first : first + self.chunk])


def shard_texts(db_path: str | Path, crawl_id: str, shard: int) -> ShardTexts:
    """The shard's sources and their texts' lengths; each chunk's texts read by opening the
    database for that read only (the shard's other workers write between reads)."""
    with open_db(db_path) as con, memory_limit(con, READ_MEMORY):
        rows = fetch_dicts(con, "read/select_shard_text_lengths", [crawl_id, shard])

    def read(urls: list[str]) -> dict[str, SourceText]:
        with open_db(db_path) as con, memory_limit(con, READ_MEMORY):
            return source_texts_of(con, crawl_id, urls)

    return ShardTexts({r["url"]: r["chars"] for r in rows}, read)


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
    """The source texts of the rows of ``queries`` (texts, sentences, link spans), read as
    columns (a dict a row cost twice as much: ~166k sentences a chunk of 4,096 sources)."""
    texts = dict(_columns(con, queries[0], params, ("url", "main_text")))
    sentences: dict[str, list[tuple[int, int, int, str]]] = defaultdict(list)
    columns = ("url", "paragraph_idx", "start_offset", "end_offset", "block_kind")
    for url, *sentence in _columns(con, queries[1], params, columns):
        sentences[url].append(tuple(sentence))
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for url, start, end in _columns(con, queries[2], params, ("url", "start_offset", "end_offset")):
        spans[url].append((start, end))
    return {u: SourceText(t or "", sentences[u], spans[u]) for u, t in texts.items()}


def _columns(
    con: duckdb.DuckDBPyConnection, query: str, params: SqlParams, names: tuple[str, ...]
) -> Iterator[tuple[Any, ...]]:
    """The rows of ``sql/read/<query>.sql`` as tuples of the columns ``names``."""
    frame = fetch_frame(con, f"read/{query}", params)
    return zip(*(frame[name].to_list() for name in names), strict=True)
