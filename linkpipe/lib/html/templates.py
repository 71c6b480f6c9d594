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

import io
import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import IO

import polars as pl

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
        pairs = ((link.target_url, link.anchor_text) for link in links)
        self.observe_page(pairs, (link.block_id for link in links))

    def observe_page(self, pairs: Iterable[tuple[str, str]], block_ids: Iterable[str]) -> None:
        """Count one page from its links' (target, anchor) pairs and block ids."""
        self.pages += 1
        self.pair_pages.update(set(pairs))
        self.block_pages.update({_signature(b) for b in block_ids if b})

    @property
    def threshold(self) -> int:
        """Pages a pair or block must appear on to count as template."""
        return max(self.min_pages, math.ceil(self.min_share * self.pages))

    def apply(self, links: list[LinkRecord]) -> int:
        """Mark one page's template "content" links as "navigation"; returns how many changed."""
        frame = pl.DataFrame(
            [{name: getattr(link, name) for name in _COLUMNS} for link in links],
            schema=dict.fromkeys(_COLUMNS, pl.String()),
        )
        rows = self.navigation_rows(frame)
        for row in rows:
            links[row].position = "navigation"
        return len(rows)

    def navigation_rows(self, links: pl.DataFrame) -> set[int]:
        """Rows of ``links`` (whole pages, each page's rows consecutive; :data:`_COLUMNS`)
        that are template "content" links: a pair on a large share of pages, in a block
        seen as is on a large share, or in one where at least two distinct pairs and at
        least half of them are (a link without a block id: the pair alone decides)."""
        threshold = self.threshold
        frequent = [_pair_key(*p) for p, n in self.pair_pages.items() if n >= threshold]
        if self.pages < self.min_pages or not frequent or links.height == 0:
            return set()
        identical = [b for b, n in self.block_pages.items() if n >= threshold]
        pair = pl.col("target_url") + _SEP + pl.col("anchor_text")
        frame = links.with_row_index("row").with_columns(
            page=(pl.col("source_url") != pl.col("source_url").shift()).fill_null(True).cum_sum(),
            frequent=pair.is_in(frequent),
            identical=pl.col("block_id")
            .str.splitn(":", 2)
            .struct.field("field_1")
            .is_in(identical),
            pair=pair,
        )
        block = ["page", "block_id"]
        n_frequent = pl.when(pl.col("frequent")).then(pl.col("pair")).drop_nulls().n_unique()
        frame = frame.with_columns(
            distinct=pl.col("pair").n_unique().over(block), n_frequent=n_frequent.over(block)
        )
        dense = (pl.col("n_frequent") >= 2) & (pl.col("n_frequent") * 2 >= pl.col("distinct"))
        template = (pl.col("block_id") == "") | pl.col("identical").fill_null(False) | dense
        chosen = frame.filter((pl.col("position") == "content") & pl.col("frequent") & template)
        return set(chosen["row"].to_list())


_SEP = "\x00"
_COLUMNS = ("source_url", "target_url", "anchor_text", "position", "block_id")


def _pair_key(target_url: str, anchor_text: str) -> str:
    return target_url + _SEP + anchor_text


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


def _as_navigation(line: bytes) -> bytes:
    """A links-file line with its position set to navigation."""
    marked = line.replace(b'"position":"content"', b'"position":"navigation"', 1)
    if marked != line:
        return marked
    row = json.loads(line)
    row["position"] = "navigation"
    return (json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _source(line: bytes) -> str:
    return str(json.loads(line)["source_url"])


def _whole_pages(handle: IO[bytes], size: int) -> Iterator[list[bytes]]:
    """Batches of about ``size`` lines of a links file, never splitting a page's lines."""
    batch = list(islice(handle, size))
    while batch:
        last, rest = _source(batch[-1]), []
        for line in handle:
            if _source(line) != last:
                rest = [line]
                break
            batch.append(line)
        yield batch
        batch = rest + list(islice(handle, size - 1)) if rest else []


def _links_frame(lines: list[bytes]) -> pl.DataFrame:
    schema = dict.fromkeys(_COLUMNS, pl.String())
    frame = pl.read_ndjson(io.BytesIO(b"".join(lines)), schema=schema)
    return frame.with_columns(pl.col(name).fill_null("") for name in _COLUMNS)


def apply_to_links_file(
    detector: TemplateDetector, src: Path, dst: Path, batch_lines: int = 100_000
) -> int:
    """Copy a links JSONL file (each page's links on consecutive lines) from ``src`` to ``dst``,
    reclassifying template links with an already-fed ``detector`` (read in batches of whole
    pages, judged column-wise); returns how many changed."""
    changed = 0
    with src.open("rb") as handle, dst.open("wb") as out:
        for lines in _whole_pages(handle, batch_lines):
            rows = detector.navigation_rows(_links_frame(lines))
            out.writelines(_as_navigation(x) if i in rows else x for i, x in enumerate(lines))
            changed += len(rows)
    return changed
