"""crawl_export: register a crawl partition, run the crawler, store pages and links."""

from __future__ import annotations

import base64
import io
import json
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import MISSING, fields
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

import polars as pl

from linkpipe.lib import progress
from linkpipe.lib.crawl import CrawlConfig, CrawlError, run_crawl
from linkpipe.lib.crawl.config import PREVIOUS_FILE, PreviousPage
from linkpipe.lib.crawl.output import PreviousCrawl, write_previous
from linkpipe.lib.hashing import shard_of, text_hash
from linkpipe.lib.html.stored import compress_html
from linkpipe.lib.importers import FILE_IMPORTERS, read_url_list
from linkpipe.lib.records import LinkRecord, PageRecord
from linkpipe.lib.spilled import SpilledFrames
from linkpipe.lib.stages.common import StageResult
from linkpipe.lib.storage import (
    crawl_row,
    execute,
    fetch_dicts,
    iter_dicts,
    open_db,
    write_partition,
)

BATCH = 2_000
T = TypeVar("T")


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
        settings = json.dumps(config or {})
        execute(con, "write/upsert_crawl", [crawl_id, start_url, source, source_path, settings])


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


def _previous_pages(
    db_path: str | Path, crawl_id: str, start_url: str, carried: Counter[str]
) -> Iterator[tuple[str, PreviousPage]]:
    """The previous crawl's validators and HTML, for a conditional recrawl; ``carried`` counts
    the pages it kept in its own rows (``carry``)."""
    with open_db(db_path) as con:
        for row in iter_dicts(con, "read/select_previous_crawl_pages", [start_url, crawl_id]):
            carried["pages"] += bool(row["carry"])
            yield (
                row["url"],
                PreviousPage(
                    etag=row["etag"],
                    last_modified=row["last_modified"],
                    content_hash=row["content_hash"],
                    html_z=row["html_z"],
                    parse_z=row["parse_z"] or b"",
                    carry=row["carry"],
                ),
            )


def _chunks(items: Iterator[T], size: int) -> Iterator[list[T]]:
    while chunk := list(islice(items, size)):
        yield chunk


# column types that one batch of rows cannot show (all empty lists, all NULL)
_PAGE_TYPES: dict[str, pl.DataType] = {
    "redirect_chain": pl.List(pl.String()),
    "hreflang": pl.String(),
    "shard": pl.Int32(),
}
_HTML_SCHEMA = {"content_hash": pl.String(), "html_z": pl.Binary()}
_PARSE_SCHEMA = {"url": pl.String(), "content_hash": pl.String(), "parse_z": pl.Binary()}


def _page_batches(
    pages: Iterator[PageRecord],
    n_shards: int,
    html: SpilledFrames,
    previous: PreviousCrawl | None = None,
) -> Iterator[pl.DataFrame]:
    """``crawl_pages`` frames of :data:`BATCH` records, hreflang as JSON; each page's HTML,
    compressed, goes to ``html`` by content (``page_html`` rows): a fetched page's, and a
    304's that the previous crawl kept in its own rows (earlier code)."""
    for batch in _chunks(pages, BATCH):
        rows: list[dict[str, object]] = []
        blobs: list[dict[str, object]] = []
        for page in batch:
            row = page.as_row()
            text = row.pop("html")
            if text:
                row["content_hash"] = row["content_hash"] or text_hash(text)
                blobs.append({"content_hash": row["content_hash"], "html_z": compress_html(text)})
            elif page.not_modified and previous is not None:
                carried = previous.carried(page.url)[0]
                if carried is not None:
                    blobs.append({"content_hash": row["content_hash"], "html_z": carried})
            row["hreflang"] = json.dumps(row["hreflang"])
            row["shard"] = shard_of(page.url, n_shards)
            rows.append(row)
        html.append(pl.DataFrame(blobs, schema=_HTML_SCHEMA))
        yield pl.DataFrame(rows, schema_overrides=_PAGE_TYPES, infer_schema_length=None)


def _link_batches(links: Iterator[LinkRecord]) -> Iterator[pl.DataFrame]:
    """``crawl_links`` frames of ``10 *`` :data:`BATCH` records (an import's links)."""
    for batch in _chunks(links, BATCH * 10):
        yield pl.DataFrame([link.as_row() for link in batch], infer_schema_length=None)


_LINK_SCHEMA = {
    f.name: pl.Boolean() if isinstance(f.default, bool) else pl.String() for f in fields(LinkRecord)
}
_LINK_DEFAULTS = {f.name: f.default for f in fields(LinkRecord) if f.default is not MISSING}


def _link_file_batches(links_path: Path) -> Iterator[pl.DataFrame]:
    """``crawl_links`` frames of ``10 *`` :data:`BATCH` lines of the crawler's links file,
    each read by polars (a missing field takes the record's default)."""
    with links_path.open("rb") as handle:
        while lines := list(islice(handle, BATCH * 10)):
            frame = pl.read_ndjson(io.BytesIO(b"".join(lines)), schema=_LINK_SCHEMA)
            yield frame.with_columns(
                pl.col(name).fill_null(default) for name, default in _LINK_DEFAULTS.items()
            )


def _parse_batches(
    parses: Iterator[dict[str, str]], previous: PreviousCrawl | None
) -> Iterator[pl.DataFrame]:
    """``page_parses`` frames of :data:`BATCH` pages: the crawler's new parses, and the
    stored parse of each page that took one the previous crawl kept in its own rows."""
    for batch in _chunks(parses, BATCH):
        rows = []
        for row in batch:
            if "parse_z" in row:
                blob: bytes | None = base64.b64decode(row["parse_z"])
            else:
                blob = previous.carried(row["url"])[1] if previous is not None else None
            if blob:
                rows.append(
                    {"url": row["url"], "content_hash": row["content_hash"], "parse_z": blob}
                )
        yield pl.DataFrame(rows, schema=_PARSE_SCHEMA)


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
        carried: Counter[str] = Counter()
        previous = _previous_pages(db_path, crawl_id, config.start_url, carried)
        reused = write_previous(previous, out / PREVIOUS_FILE)
        if reused:
            config.previous_path = str(out / PREVIOUS_FILE)
        # read here only for what a 304 carries over (an index of every URL: ~0.1 ms a page)
        carry = carried["pages"] > 0
        stored = PreviousCrawl(out / PREVIOUS_FILE, config.normalization()) if carry else None
        if settings["source"] == "url_list":
            config.seed_urls = read_url_list(Path(settings["source_path"]))
            config.max_depth, config.use_sitemap = 0, False  # fetch the listed URLs only
        result = run_crawl(
            config,
            out / "crawl",
            progress=lambda done, queued: progress.report("crawl", done, queued),
        )
        progress.report("crawl", int(result.stats.get("pages", 0)), 0)
        html = SpilledFrames(out, "html")  # filled as the pages are written, then added
        with open_db(db_path) as con:
            rows = write_partition(
                con,
                crawl_id,
                {
                    "crawl_pages": _page_batches(result.iter_pages(), n_shards, html, stored),
                    "crawl_links": _link_file_batches(result.links_path),
                    "page_parses": _parse_batches(result.iter_parses(), stored),
                    "page_html": html,
                },
            )
            execute(con, "write/update_crawl_stats", [json.dumps(result.stats), crawl_id])
        if stored is not None:
            stored.close()
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
    with tempfile.TemporaryDirectory(prefix="linkpipe-import-") as tmp, open_db(db_path) as con:
        html = SpilledFrames(Path(tmp), "html")
        rows = write_partition(
            con,
            crawl_id,
            {
                "crawl_pages": _page_batches(iter(imported.pages), n_shards, html),
                "crawl_links": _link_batches(iter(imported.links)),
                "page_html": html,
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
