"""Anchor quality: the share of in-sentence anchors that are well-formed phrases.

Each anchor is judged in its sentence, parsed alone, by :class:`~linkpipe.lib.text.phrases.PhraseJudge`:
well formed when it is a noun phrase ending on its head or exactly one complete constituent, and
cuts no name, number, address or code span. Without a parser (spaCy or its English pipeline
missing) the share is unknown (None), never guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from linkpipe.lib.links.rows import LinkOpportunity
from linkpipe.lib.storage import fetch_dicts, open_db
from linkpipe.lib.text.phrases import WELL_FORMED, PhraseJudge, default_judge

Placed = tuple[str, int, int]  # (sentence, anchor start, anchor end) in the sentence


@dataclass(frozen=True)
class AnchorQuality:
    """How many in-sentence anchors were judged, how many are well formed, the verdicts and a
    few rejected anchors (anchor, verdict, sentence)."""

    anchors: int
    well_formed: int
    parsed: bool
    verdicts: dict[str, int] = field(default_factory=dict)
    rejected: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def share(self) -> float | None:
        """Well-formed anchors / anchors; None without a parser or without anchors."""
        return self.well_formed / self.anchors if self.parsed and self.anchors else None


def sentence_span(main_text: str, sentence: str, start: int, end: int) -> Placed | None:
    """The anchor at ``main_text[start:end]`` as offsets in ``sentence``, which contains it;
    None when the sentence is not found around it."""
    at = main_text.find(sentence, max(0, end - len(sentence)), start + len(sentence))
    if at < 0 or at > start:
        return None
    return sentence, start - at, end - at


def judge_anchors(
    placed: Iterable[Placed], judge: PhraseJudge | None = None, examples: int = 20
) -> AnchorQuality:
    """The :class:`AnchorQuality` of anchors given in their sentences."""
    judge = judge or default_judge()
    items = list(placed)
    judge.prepare(sentence for sentence, _, _ in items)
    verdicts: Counter[str] = Counter()
    rejected: list[tuple[str, str, str]] = []
    for sentence, start, end in items:
        verdict = judge.verdict(sentence, start, end)
        verdicts[verdict] += 1
        if verdict not in WELL_FORMED and len(rejected) < examples:
            rejected.append((sentence[start:end], verdict, sentence))
    good = sum(verdicts[v] for v in WELL_FORMED)
    return AnchorQuality(len(items), good, judge.parsed, dict(verdicts), rejected)


def opportunity_anchors(rows: Sequence[LinkOpportunity], texts: dict[str, str]) -> list[Placed]:
    """The in-sentence anchors of opportunity rows, in their sentences (``texts``: the
    sources' main texts, which the anchor offsets index)."""
    out = []
    for row in rows:
        if row.anchor_start is None or row.anchor_end is None or row.sentence is None:
            continue
        span = sentence_span(
            texts.get(row.source_url, ""), row.sentence, row.anchor_start, row.anchor_end
        )
        if span is not None:
            out.append(span)
    return out


def database_anchor_quality(
    db: str | Path, crawl_id: str | None = None, judge: PhraseJudge | None = None
) -> tuple[str, AnchorQuality]:
    """(crawl id, quality of its stored in-sentence anchors) for a crawl of a linkpipe
    database, the latest one by default."""
    with open_db(db, read_only=True) as con:
        if crawl_id is None:
            latest = fetch_dicts(con, "read/select_latest_crawl")
            if not latest:
                raise ValueError(f"{db} has no finished crawl: name one with --crawl-id")
            crawl_id = str(latest[0]["crawl_id"])
        rows = fetch_dicts(con, "read/select_in_sentence_anchors", [crawl_id])
    placed = []
    for r in rows:
        span = sentence_span(
            r["main_text"] or "", r["sentence"], r["anchor_start"], r["anchor_end"]
        )
        if span is not None:
            placed.append(span)
    return crawl_id, judge_anchors(placed, judge)


def format_quality(quality: AnchorQuality) -> str:
    """One paragraph: the share, the verdict counts and the rejected anchors."""
    share = "unknown (no parser installed)" if quality.share is None else f"{quality.share:.3f}"
    counts = ", ".join(f"{v} {n}" for v, n in sorted(quality.verdicts.items()))
    lines = [f"Well-formed anchors: {share} of {quality.anchors} in-sentence anchors ({counts})"]
    lines += [f'  rejected "{a}" ({v})' for a, v, _ in quality.rejected[:10]]
    return "\n".join(lines)
