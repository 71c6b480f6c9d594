"""Template detection: link blocks that repeat across many pages are navigation.

``parse_page`` gives every link a ``block_id`` = ``"<ordinal>:<signature>"``, where the signature
hashes the text and the (target, anchor) pairs of the element that holds the link (its nearest
``ul``/``div``/``p``/... ancestor). A block is a template block when

* the very same block (same signature) appears on a large share of the pages, or
* at least two of its distinct (target, anchor) pairs, and at least half of them, each appear on a
  large share of the pages (a menu whose "current page" item varies from page to page).

"Large share" means at least ``max(min_pages, min_share * pages)`` pages, so nothing is
reclassified on sites smaller than ``min_pages``, and an in-text link (in a paragraph whose text is
unique to its page) is never reclassified. Only links whose position is "content" are changed.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from linkpipe.lib.records import LinkRecord

DEFAULT_MIN_PAGES = 8
DEFAULT_MIN_SHARE = 0.3
SAMPLE_PAGES = 20_000  # a crawl observes about this many pages (hash sample) for the statistics


def _signature(block_id: str) -> str:
    return block_id.partition(":")[2]


class TemplateDetector:
    """Two passes: :meth:`observe` every (sampled) page, then :meth:`apply` to every page."""

    def __init__(self, min_pages: int = DEFAULT_MIN_PAGES, min_share: float = DEFAULT_MIN_SHARE):
        self.min_pages = min_pages
        self.min_share = min_share
        self.pages = 0
        self.pair_pages: Counter[tuple[str, str]] = Counter()
        self.block_pages: Counter[str] = Counter()

    def observe(self, links: Iterable[LinkRecord]) -> None:
        """Count one page's distinct pairs and block signatures."""
        links = list(links)
        self.pages += 1
        self.pair_pages.update({(link.target_url, link.anchor_text) for link in links})
        self.block_pages.update({_signature(link.block_id) for link in links if link.block_id})

    @property
    def threshold(self) -> int:
        """Pages a pair or block must appear on to count as template."""
        return max(self.min_pages, math.ceil(self.min_share * self.pages))

    def apply(self, links: list[LinkRecord]) -> int:
        """Mark one page's template "content" links as "navigation"; returns how many changed."""
        if self.pages < self.min_pages:
            return 0
        threshold = self.threshold
        blocks: dict[str, list[LinkRecord]] = {}
        for link in links:
            blocks.setdefault(link.block_id, []).append(link)
        changed = 0
        for block_id, members in blocks.items():
            frequent = {
                (m.target_url, m.anchor_text)
                for m in members
                if self.pair_pages[(m.target_url, m.anchor_text)] >= threshold
            }
            if not frequent:
                continue
            if block_id:
                identical = self.block_pages[_signature(block_id)] >= threshold
                distinct = {(m.target_url, m.anchor_text) for m in members}
                dense = len(frequent) >= 2 and len(frequent) * 2 >= len(distinct)
                if not (identical or dense):
                    continue
            # without block ids (imported links) a frequent pair alone decides
            for member in members:
                if member.position == "content" and (
                    (member.target_url, member.anchor_text) in frequent
                ):
                    member.position = "navigation"
                    changed += 1
        return changed


def reclassify_template_links(
    links_by_page: dict[str, list[LinkRecord]],
    min_pages: int = DEFAULT_MIN_PAGES,
    min_share: float = DEFAULT_MIN_SHARE,
) -> int:
    """Reclassify template links in place (pages without links count as pages); returns changes."""
    detector = TemplateDetector(min_pages, min_share)
    for links in links_by_page.values():
        detector.observe(links)
    return sum(detector.apply(links) for links in links_by_page.values())


def _dump(link: LinkRecord) -> str:
    return json.dumps(link.__dict__, ensure_ascii=False, separators=(",", ":")) + "\n"


def _page_groups(path: Path) -> Iterator[list[tuple[str, LinkRecord]]]:
    """Consecutive lines with the same source_url of a links JSONL file, with their records."""
    group: list[tuple[str, LinkRecord]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            link = LinkRecord(**json.loads(line))
            if group and group[0][1].source_url != link.source_url:
                yield group
                group = []
            group.append((line, link))
    if group:
        yield group


def apply_to_links_file(detector: TemplateDetector, src: Path, dst: Path) -> int:
    """Copy a links JSONL file (each page's links on consecutive lines) from ``src`` to ``dst``,
    reclassifying template links with an already-fed ``detector``; returns how many changed."""
    changed = 0
    with dst.open("w", encoding="utf-8") as out:
        for group in _page_groups(src):
            links = [link for _, link in group]
            before = [link.position for link in links]
            if not detector.apply(links):
                out.writelines(line for line, _ in group)
                continue
            for (line, link), position in zip(group, before, strict=True):
                if link.position != position:
                    old, new = f'"position":"{position}"', f'"position":"{link.position}"'
                    line = line.replace(old, new, 1) if old in line else _dump(link)
                    changed += 1
                out.write(line)
    return changed
