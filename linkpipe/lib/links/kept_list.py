"""A source's TF-IDF list as a search stores it and as a refresh keeps it
(:mod:`~linkpipe.lib.links.kept_lexical`): the pages, the cut and floor they hang on, the next
pages below the cut (:mod:`~linkpipe.lib.links.list_next`) and the runner-up after the list
(:mod:`~linkpipe.lib.links.list_patch`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from linkpipe.lib.links.list_next import Known, Taken
from linkpipe.lib.text.lexical_index import Bounds


@dataclass(frozen=True)
class KeptList:
    """A source's TF-IDF neighbours as the index found them (URLs, best first), the partial
    sum at the index's cut (None: nothing cut), the floor, and (``cut_high``) the highest the
    cut may be when pages entered the pages ordered since it was found (None: the cut is
    exact); ``as_stored``: False for a list kept otherwise than the previous crawl stored it
    (patched, its cut moved, a next page or its runner-up no longer known): its row is
    written again; ``next_urls`` and ``next_partials``: the pages of highest partial sum
    below the cut, best first, and those sums; ``runner_url`` and ``runner_cosine``: the page
    of highest cosine among those ordered after the list and that cosine, every other page
    ordered below it (None: not known)."""

    urls: tuple[str, ...]
    cut: float | None
    floor: float
    cut_high: float | None = None
    as_stored: bool = True
    next_urls: tuple[str, ...] = ()
    next_partials: tuple[float, ...] = ()
    runner_url: str | None = None
    runner_cosine: float | None = None


def searched_list(urls: tuple[str, ...], bounds: Bounds, pages: Sequence[str]) -> KeptList:
    """The list a query found (``urls``) with what it hangs on (``pages``: URLs by row)."""
    runner = pages[bounds.runner_row] if bounds.runner_row >= 0 else None
    return KeptList(
        urls,
        bounds.cut,
        bounds.floor,
        next_urls=tuple(pages[r] for r in bounds.next_rows),
        next_partials=bounds.next_partials,
        runner_url=runner,
        runner_cosine=bounds.runner_cosine if runner is not None else None,
    )


STORED_COLUMNS: dict[str, pl.DataType] = {  # the columns an older database may lack
    "lexical_cut_high": pl.Float64(),
    "lexical_nexts": pl.List(pl.String),
    "lexical_next_partials": pl.List(pl.Float64),
    "lexical_runner": pl.String(),
    "lexical_runner_cosine": pl.Float64(),
}


def stored_frame(stored: pl.DataFrame, row_of: Mapping[str, int]) -> pl.DataFrame:
    """The stored lists a refresh may keep, every column of :data:`STORED_COLUMNS` present,
    and ``high``: the cut's high end (its low end when exact)."""
    frame = stored.filter(
        pl.col("lexical_hits").is_not_null()
        & pl.col("lexical_floor").is_not_null()
        & pl.col("source_url").is_in(list(row_of))
    )
    frame = frame.with_columns(
        pl.lit(None, dtype).alias(name)
        for name, dtype in STORED_COLUMNS.items()
        if name not in frame.columns
    )
    return frame.with_columns(high=pl.coalesce("lexical_cut_high", "lexical_cut"))


NO_NEXT = Known([], [], np.inf)


class StoredLists:
    """The kept lists of a frame of stored ones (:func:`stored_frame`), made as each rule keeps
    them; ``known``: each source's next pages still known, ``runners``: the row of each one's
    runner-up still known (-1: none), ``url_of``: URLs by row where rules need them."""

    def __init__(self, frame: pl.DataFrame, hits: list[list[str]], url_of: dict[int, str]) -> None:
        self.sources = frame["source_url"].to_list()
        self.cuts = frame["lexical_cut"].to_list()
        self.floors = frame["lexical_floor"].to_list()
        self.highs = frame["lexical_cut_high"].to_list()
        self.next_urls: list[list[str] | None] = frame["lexical_nexts"].to_list()
        self.next_sums: list[list[float] | None] = frame["lexical_next_partials"].to_list()
        self.runner_urls = frame["lexical_runner"].to_list()
        self.runner_cosines = frame["lexical_runner_cosine"].fill_null(np.nan).to_numpy()
        self.hits, self.url_of = hits, url_of
        self.known: list[Known] = [NO_NEXT] * len(hits)
        self.runners = np.full(len(hits), -1)

    def source(self, i: int) -> str:
        return str(self.sources[i])

    def _next(self, i: int) -> tuple[tuple[str, ...], tuple[float, ...]]:
        """The source's next pages still known and their sums."""
        count = len(self.known[i].rows)
        if not count:
            return (), ()
        return tuple((self.next_urls[i] or [])[:count]), tuple(self.known[i].partials)

    def _runner(self, i: int) -> tuple[str | None, float | None]:
        if self.runners[i] < 0:
            return None, None
        return self.runner_urls[i], float(self.runner_cosines[i])

    def runner(self, i: int) -> tuple[int, float] | None:
        """The source's runner-up (its row) and cosine where still known."""
        if self.runners[i] < 0:
            return None
        return int(self.runners[i]), float(self.runner_cosines[i])

    def _runner_url(self, runner: tuple[int, float] | None) -> tuple[str | None, float | None]:
        """A runner-up (row, cosine) as stored (URL, cosine)."""
        return (self.url_of[runner[0]], runner[1]) if runner is not None else (None, None)

    def kept(self, i: int, raised: bool, high: float) -> KeptList:
        """The list kept as it was, its cut's range raised to ``high`` when pages entered."""
        urls, partials = self._next(i)
        runner = self._runner(i)
        same = not raised and len(urls) == len(self.next_urls[i] or [])
        same = same and runner[0] == self.runner_urls[i]
        top = high if raised else self.highs[i]
        hits = tuple(self.hits[i])
        return KeptList(hits, self.cuts[i], self.floors[i], top, same, urls, partials, *runner)

    def patched(
        self, i: int, urls: tuple[str, ...], floor: float, runner: tuple[int, float] | None
    ) -> KeptList:
        """The list patched to ``urls`` with its new ``floor`` and runner-up (row, cosine)."""
        after = self._runner_url(runner)
        return KeptList(urls, self.cuts[i], floor, self.highs[i], False, *self._next(i), *after)

    def left(
        self,
        i: int,
        taken: Taken,
        urls: tuple[str, ...],
        floor: float,
        runner: tuple[int, float] | None,
    ) -> KeptList:
        """The list while pages left the ones ordered (:func:`~list_next.left_some`): the cut
        now exact, the next pages those known after it, patched to ``urls`` with ``floor``
        and ``runner`` (row, cosine)."""
        nexts = tuple(self.url_of[r] for r in taken.rows)
        after = self._runner_url(runner)
        partials = tuple(taken.partials)
        return KeptList(urls, taken.cut, floor, None, False, nexts, partials, *after)
