"""page_summaries for one shard: main content, sentences with offsets, compact summaries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linkpipe.lib import progress
from linkpipe.lib.content.extraction import extract_main_content
from linkpipe.lib.content.summaries import (
    build_summary,
    clean_title,
    site_title_affixes,
    slug_words,
)
from linkpipe.lib.sharding import text_hash
from linkpipe.lib.stages.common import StageResult, decompress_html, preview
from linkpipe.lib.storage import fetch_dicts, open_db, write_partition
from linkpipe.lib.urls import normalize_url


def materialize_page_summaries(db_path: str | Path, crawl_id: str, shard: int) -> StageResult:
    """Extract and summarise the shard's indexable pages."""
    with open_db(db_path) as con:
        pages = fetch_dicts(con, "read/select_pages_for_summaries", [crawl_id, shard])
        affixes = site_title_affixes(
            [r["title"] for r in fetch_dicts(con, "read/select_crawl_titles", [crawl_id])]
        )
    summaries: list[dict[str, Any]] = []
    sentences: list[dict[str, Any]] = []
    text_links: list[dict[str, Any]] = []
    for n, page in enumerate(pages, start=1):
        content = extract_main_content(decompress_html(page["html_z"]), page["url"])
        title = clean_title(page["title"] or "", affixes)
        summary = build_summary(
            page["url"],
            title,
            page["h1"] or "",
            page["meta_description"] or "",
            content,
        )
        summaries.append(
            {
                "url": page["url"],
                "content_hash": page["content_hash"],
                "title": title,
                "h1": page["h1"],
                "slug_words": slug_words(page["url"]),
                "main_text": content.text,
                "summary": summary,
                "summary_hash": text_hash(summary),
                "word_count": len(content.text.split()),
                "extraction_error": content.error or None,
            }
        )
        sentences += [
            {
                "url": page["url"],
                "paragraph_idx": s.paragraph_idx,
                "sentence_idx": s.sentence_idx,
                "block_kind": s.block_kind,
                "start_offset": s.start,
                "end_offset": s.end,
                "sentence": s.text,
            }
            for s in content.sentences
        ]
        text_links += [
            {
                "url": page["url"],
                "target_url": _normalize(link.target_url, page["url"]),
                "anchor_text": link.anchor_text,
                "start_offset": link.start,
                "end_offset": link.end,
            }
            for link in content.links
        ]
        progress.report(f"summaries shard {shard}", n, len(pages))
    with open_db(db_path) as con:
        written = write_partition(
            con,
            crawl_id,
            {
                "page_summaries": summaries,
                "page_sentences": sentences,
                "page_text_links": text_links,
            },
            shard=shard,
        )
    failed = sum(1 for s in summaries if s["extraction_error"])
    return StageResult(
        written,
        preview(summaries, ["url", "word_count", "summary"]),
        {"extraction_failures": failed},
    )


def _normalize(target: str, base: str) -> str:
    try:
        return normalize_url(target, base)
    except ValueError:
        return target
