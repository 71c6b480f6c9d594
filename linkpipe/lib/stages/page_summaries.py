"""page_summaries for one shard: main content, sentences with offsets, compact summaries.

Incremental by content: a page keeps its rows of the previous crawl (the latest earlier crawl of
the same start URL with page_summaries rows in the shard), copied by SQL in the partition's
write transaction, when its reuse key is unchanged. A row is a function of the page's URL, its
HTML, its crawled title, H1 and meta description, and of the site's title affixes only through
the cleaned title, so the reuse key is:

    url, content_hash (sha1 of the stored HTML), whether HTML is stored, crawled title, H1,
    meta description, clean_title(crawled title, this crawl's site_title_affixes), and the
    extractor (:func:`extractor_digest`: the extraction code and the versions of trafilatura,
    lxml and jusText)

(the clean title compared with the previous row's stored ``title``). With the key equal, recomputing
gives byte-identical rows, so reuse changes cost, never results.

The sentences and in-text links are not copied: they are stored once by the page's
:func:`text_key` (URL, HTML and extractor: all they are extracted from) in ``text_sentences``
and ``text_links``, which the copied ``page_summaries`` row names, and read as the
``page_sentences`` and ``page_text_links`` views. A page extracted again whose key is stored
(its title changed, or it came back) adds none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import duckdb

from linkpipe.lib import progress
from linkpipe.lib.content.extraction import extract_main_content
from linkpipe.lib.content.summaries import (
    build_summary,
    clean_title,
    site_title_affixes,
    slug_words,
)
from linkpipe.lib.hashing import code_digest, text_hash
from linkpipe.lib.html.stored import decompress_html
from linkpipe.lib.stages.common import StageResult, preview
from linkpipe.lib.storage import CopiedRows, fetch_dicts, open_db, write_partition
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
    extractor: str  # extractor_digest() of the code that made the row
    text_key: str  # text_key(): the key of the page's text_sentences and text_links rows


class SentenceRow(TypedDict):
    """One ``text_sentences`` row (read by crawl and URL as the ``page_sentences`` view)."""

    text_key: str
    paragraph_idx: int
    sentence_idx: int
    block_kind: str
    start_offset: int
    end_offset: int
    sentence: str


class TextLinkRow(TypedDict):
    """One ``text_links`` row: a link inside the main text (read by crawl and URL as the
    ``page_text_links`` view)."""

    text_key: str
    target_url: str
    anchor_text: str
    start_offset: int
    end_offset: int


@dataclass
class ShardText:
    """The rows one shard writes: its pages' summaries, sentences and in-text links."""

    summaries: list[SummaryRow] = field(default_factory=list)
    sentences: list[SentenceRow] = field(default_factory=list)
    text_links: list[TextLinkRow] = field(default_factory=list)


@dataclass
class ReusePlan:
    """The shard's pages split by the reuse key: rows to copy from ``previous``, pages to
    extract (rows of ``read/select_pages_for_summary_reuse`` with their ``html_z``)."""

    previous: str | None
    affixes: set[str] = field(default_factory=set)  # this crawl's site_title_affixes
    reused: list[str] = field(default_factory=list)  # URLs whose rows are copied
    reused_failures: int = 0  # of them, pages whose copied row has an extraction error
    recompute: list[dict[str, Any]] = field(default_factory=list)


def materialize_page_summaries(db_path: str | Path, crawl_id: str, shard: int) -> StageResult:
    """Extract and summarise the shard's indexable pages whose reuse key changed; copy the
    rows of the others from the previous crawl."""
    with open_db(db_path) as con:
        plan = plan_reuse(con, crawl_id, shard)
    text = ShardText()
    for n, page in enumerate(plan.recompute, start=1):
        add_page_text(text, page, plan.affixes)
        progress.report(f"summaries shard {shard}", n, len(plan.recompute))
    copied = {"page_summaries": CopiedRows(plan.previous, plan.reused)} if plan.previous else {}
    with open_db(db_path) as con:
        written = write_partition(
            con,
            crawl_id,
            {
                "page_summaries": text.summaries,
                "text_sentences": text.sentences,
                "text_links": text.text_links,
            },
            shard=shard,
            copied=copied,
        )
    failed = sum(1 for s in text.summaries if s["extraction_error"]) + plan.reused_failures
    return StageResult(
        written,
        preview(text.summaries, ["url", "word_count", "summary"]),
        {
            "extraction_failures": failed,
            "reused_pages": len(plan.reused),
            "recomputed_pages": len(text.summaries),
            "reused_from": plan.previous,
        },
    )


def extractor_digest() -> str:
    """Digest of what a page's rows are extracted with: ``linkpipe.lib.content``, this stage,
    URL normalisation, and the installed trafilatura, lxml and jusText."""
    modules = ("linkpipe.lib.content", "linkpipe.lib.stages.page_summaries", "linkpipe.lib.urls")
    return code_digest(modules, ("trafilatura", "lxml", "justext"))


def text_key(url: str, content_hash: str | None, has_html: bool, extractor: str) -> str:
    """The key of a page's ``text_sentences`` and ``text_links`` rows: the digest of
    everything they are extracted from (the page's URL, its stored HTML and the extraction
    code)."""
    parts = ("text", url, content_hash or "", "html" if has_html else "no html", extractor)
    return text_hash("\x1f".join(parts))


def plan_reuse(con: duckdb.DuckDBPyConnection, crawl_id: str, shard: int) -> ReusePlan:
    """Which pages of the shard keep the previous crawl's rows (see the module docstring)."""
    found = fetch_dicts(con, "read/select_previous_summaries_crawl", [crawl_id, shard])
    plan = ReusePlan(found[0]["crawl_id"] if found else None)
    params = [plan.previous, shard, extractor_digest(), crawl_id, shard]
    pages = fetch_dicts(con, "read/select_pages_for_summary_reuse", params)
    titles = fetch_dicts(con, "read/select_crawl_titles", [crawl_id])
    plan.affixes = affixes = site_title_affixes([r["title"] for r in titles])
    withheld: list[dict[str, Any]] = []  # a reusable row, but the cleaned title changed
    for page in pages:
        if not page["reusable"]:
            plan.recompute.append(page)
        elif clean_title(page["title"] or "", affixes) == page["previous_title"]:
            plan.reused.append(page["url"])
            plan.reused_failures += bool(page["previous_extraction_error"])
        else:
            withheld.append(page)
    if withheld:
        html = fetch_dicts(con, "read/select_pages_html", [crawl_id, [p["url"] for p in withheld]])
        by_url = {r["url"]: r["html_z"] for r in html}
        for page in withheld:
            page["html_z"] = by_url.get(page["url"])
        plan.recompute = sorted([*plan.recompute, *withheld], key=lambda p: str(p["url"]))
    return plan


def add_page_text(text: ShardText, page: Mapping[str, Any], affixes: set[str]) -> None:
    """Extract one page (a row of ``read/select_pages_for_summary_reuse``) into ``text``."""
    url: str = page["url"]
    content = extract_main_content(decompress_html(page["html_z"]), url)
    title = clean_title(page["title"] or "", affixes)
    summary = build_summary(url, title, page["h1"] or "", page["meta_description"] or "", content)
    key = text_key(url, page["content_hash"], page["html_z"] is not None, extractor_digest())
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
            extractor=extractor_digest(),
            text_key=key,
        )
    )
    text.sentences += [
        SentenceRow(
            text_key=key,
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
            text_key=key,
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
