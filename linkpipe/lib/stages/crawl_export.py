"""crawl_export: register a crawl partition, run the crawler, store pages and links."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from linkpipe.lib import progress
from linkpipe.lib.crawl import CrawlConfig, CrawlError, run_crawl
from linkpipe.lib.importers import FILE_IMPORTERS, read_url_list
from linkpipe.lib.records import LinkRecord, PageRecord
from linkpipe.lib.sharding import shard_of
from linkpipe.lib.stages.common import StageResult, compress_html, decompress_html
from linkpipe.lib.storage import crawl_row, fetch_dicts, load_sql, open_db, write_partition

BATCH = 2_000


def register_crawl(
    db_path: str | Path,
    crawl_id: str,
    start_url: str,
    source: str = "crawler",
    source_path: str = "",
    config: dict[str, Any] | None = None,
) -> None:
    """Record what a crawl partition is (start URL, source, settings) before it runs."""
    with open_db(db_path) as con:
        con.execute(
            load_sql("write/upsert_crawl"),
            [crawl_id, start_url, source, source_path, json.dumps(config or {})],
        )


def crawl_settings(db_path: str | Path, crawl_id: str) -> dict[str, Any]:
    """The registered row of a crawl partition; a clear error when it was never registered."""
    with open_db(db_path) as con:
        row = crawl_row(con, crawl_id)
    if row is None:
        raise CrawlError(
            f"crawl {crawl_id!r} is not registered: start it with `linkpipe run URL` or "
            "`linkpipe crawl URL`, which record its start URL and settings"
        )
    return row


def _write_previous(db_path: str | Path, crawl_id: str, start_url: str, path: Path) -> int:
    """Write the previous crawl's validators and HTML for a conditional recrawl."""
    with open_db(db_path) as con:
        rows = fetch_dicts(con, "read/select_previous_crawl_pages", [start_url, crawl_id])
    with path.open("w", encoding="utf-8") as handle:
        for r in rows:
            handle.write(
                json.dumps(
                    {
                        "url": r["url"],
                        "etag": r["etag"],
                        "last_modified": r["last_modified"],
                        "content_hash": r["content_hash"],
                        "html": decompress_html(r["html_z"]),
                    }
                )
                + "\n"
            )
    return len(rows)


def _page_batches(pages: Iterator[PageRecord], n_shards: int) -> Iterator[pa.Table]:
    batch: list[dict[str, Any]] = []
    for page in pages:
        row = page.as_row()
        row["html_z"] = compress_html(row.pop("html")) if row.get("html") else None
        row["hreflang"] = json.dumps(row["hreflang"])
        row["shard"] = shard_of(page.url, n_shards)
        batch.append(row)
        if len(batch) >= BATCH:
            yield pa.Table.from_pylist(batch)
            batch = []
    if batch:
        yield pa.Table.from_pylist(batch)


def _link_batches(links: Iterator[LinkRecord]) -> Iterator[pa.Table]:
    batch: list[dict[str, Any]] = []
    for link in links:
        batch.append(link.as_row())
        if len(batch) >= BATCH * 10:
            yield pa.Table.from_pylist(batch)
            batch = []
    if batch:
        yield pa.Table.from_pylist(batch)


def materialize_crawl_export(db_path: str | Path, crawl_id: str, n_shards: int) -> StageResult:
    """Crawl the registered start URL (or read the registered import) and replace the crawl's
    pages and links in one transaction."""
    settings = crawl_settings(db_path, crawl_id)
    if settings["source"] in FILE_IMPORTERS:
        return _materialize_import(db_path, crawl_id, n_shards, settings)
    config = CrawlConfig.from_dict(
        {**json.loads(settings["config_json"] or "{}"), "start_url": settings["start_url"]}
    )
    with tempfile.TemporaryDirectory(prefix="linkpipe-crawl-") as tmp:
        out = Path(tmp)
        reused = _write_previous(db_path, crawl_id, config.start_url, out / "previous_in.jsonl")
        if reused:
            config.previous_path = str(out / "previous_in.jsonl")
        if settings["source"] == "url_list":
            config.seed_urls = read_url_list(Path(settings["source_path"]))
            config.max_depth, config.use_sitemap = 0, False  # fetch the listed URLs only
        result = run_crawl(
            config,
            out / "crawl",
            progress=lambda done, queued: progress.report("crawl", done, queued),
        )
        progress.report("crawl", int(result.stats.get("pages", 0)), 0)
        with open_db(db_path) as con:
            rows = write_partition(
                con,
                crawl_id,
                {
                    "crawl_pages": _page_batches(result.iter_pages(), n_shards),
                    "crawl_links": _link_batches(result.iter_links()),
                },
            )
            con.execute(load_sql("write/update_crawl_stats"), [json.dumps(result.stats), crawl_id])
        pages_preview = [
            {"url": p.url, "status": p.status, "title": p.title, "depth": p.depth}
            for _, p in zip(range(5), result.iter_pages(), strict=False)
        ]
    return StageResult(
        rows, pages_preview, {"crawl_stats": dict(result.stats), "previous_pages": reused}
    )


def _materialize_import(
    db_path: str | Path, crawl_id: str, n_shards: int, settings: dict[str, Any]
) -> StageResult:
    """Read a Screaming Frog folder or a WARC file; a malformed file writes nothing."""
    imported = FILE_IMPORTERS[settings["source"]](Path(settings["source_path"]))
    with open_db(db_path) as con:
        rows = write_partition(
            con,
            crawl_id,
            {
                "crawl_pages": _page_batches(iter(imported.pages), n_shards),
                "crawl_links": _link_batches(iter(imported.links)),
            },
        )
    pages_preview = [
        {"url": p.url, "status": p.status, "title": p.title} for p in imported.pages[:5]
    ]
    return StageResult(rows, pages_preview, {"warnings": imported.warnings[:50]})


def latest_crawler_settings(db_path: str | Path) -> dict[str, Any] | None:
    """The most recently registered crawler partition (for the nightly sensor)."""
    with open_db(db_path) as con:
        rows = fetch_dicts(con, "read/select_latest_crawler_crawl", [])
    return rows[0] if rows else None
