"""page_summaries for one shard: main content, sentences with offsets, compact summaries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from linkpipe.lib import progress
from linkpipe.lib.content.extraction import extract_main_content
from linkpipe.lib.content.summaries import (
    build_summary,
    clean_title,
    site_title_affixes,
    slug_words,
)
from linkpipe.lib.hashing import text_hash
from linkpipe.lib.stages.common import StageResult, decompress_html, preview
from linkpipe.lib.storage import fetch_dicts, open_db, write_partition
from linkpipe.lib.urls import normalize_url


class SummaryRow(TypedDict):
    """One ``page_summaries`` row."""

    url: str
    content_hash: str
    title: str
    h1: str | None
    slug_words: str
    main_text: str  # offsets of the two tables below index into it
    summary: str  # the identity text that gets embedded
    summary_hash: str  # text_hash(summary): with the model id, the embedding cache key
    word_count: int
    extraction_error: str | None


class SentenceRow(TypedDict):
    """One ``page_sentences`` row."""

    url: str
    paragraph_idx: int
    sentence_idx: int
    block_kind: str
    start_offset: int
    end_offset: int
    sentence: str


class TextLinkRow(TypedDict):
    """One ``page_text_links`` row: a link inside the main text."""

    url: str
    target_url: str
    anchor_text: str
    start_offset: int
    end_offset: int


@dataclass
class ShardText:
    """The rows of one shard's three tables."""

    summaries: list[SummaryRow] = field(default_factory=list)
    sentences: list[SentenceRow] = field(default_factory=list)
    text_links: list[TextLinkRow] = field(default_factory=list)


def materialize_page_summaries(db_path: str | Path, crawl_id: str, shard: int) -> StageResult:
    """Extract and summarise the shard's indexable pages."""
    with open_db(db_path) as con:
        pages = fetch_dicts(con, "read/select_pages_for_summaries", [crawl_id, shard])
        affixes = site_title_affixes(
            [r["title"] for r in fetch_dicts(con, "read/select_crawl_titles", [crawl_id])]
        )
    text = ShardText()
    for n, page in enumerate(pages, start=1):
        add_page_text(text, page, affixes)
        progress.report(f"summaries shard {shard}", n, len(pages))
    with open_db(db_path) as con:
        written = write_partition(
            con,
            crawl_id,
            {
                "page_summaries": text.summaries,
                "page_sentences": text.sentences,
                "page_text_links": text.text_links,
            },
            shard=shard,
        )
    failed = sum(1 for s in text.summaries if s["extraction_error"])
    return StageResult(
        written,
        preview(text.summaries, ["url", "word_count", "summary"]),
        {"extraction_failures": failed},
    )


def add_page_text(text: ShardText, page: Mapping[str, Any], affixes: set[str]) -> None:
    """Extract one page (a row of ``read/select_pages_for_summaries``) into ``text``."""
    url: str = page["url"]
    content = extract_main_content(decompress_html(page["html_z"]), url)
    title = clean_title(page["title"] or "", affixes)
    summary = build_summary(url, title, page["h1"] or "", page["meta_description"] or "", content)
    text.summaries.append(
        SummaryRow(
            url=url,
            content_hash=page["content_hash"],
            title=title,
            h1=page["h1"],
            slug_words=slug_words(url),
            main_text=content.text,
            summary=summary,
            summary_hash=text_hash(summary),
            word_count=len(content.text.split()),
            extraction_error=content.error or None,
        )
    )
    text.sentences += [
        SentenceRow(
            url=url,
            paragraph_idx=s.paragraph_idx,
            sentence_idx=s.sentence_idx,
            block_kind=s.block_kind,
            start_offset=s.start,
            end_offset=s.end,
            sentence=s.text,
        )
        for s in content.sentences
    ]
    text.text_links += [
        TextLinkRow(
            url=url,
            target_url=_normalize(link.target_url, url),
            anchor_text=link.anchor_text,
            start_offset=link.start,
            end_offset=link.end,
        )
        for link in content.links
    ]


def _normalize(target: str, base: str) -> str:
    try:
        return normalize_url(target, base)
    except ValueError:
        return target
