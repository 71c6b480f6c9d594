"""Reasons an editor reads (issue 11): at most 25 words, strongest evidence first, no boilerplate
true of every row; sentence excerpts on word boundaries; and on the demo site every stored
reason is short."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from linkpipe.cli.output import excerpt
from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.scoring import MAX_REASON_WORDS, build_reason, quoted, reason_evidence
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig
from linkpipe.lib.storage import open_db
from linkpipe_tests.graph import crawl_and_run

LONG_NAME = "The Complete Guide To Layers Masks Channels And Paths In Practice"


def pair(
    sim: float = 0.7,
    lexical: float = 0.1,
    mention: tuple[str, float, int, int] | None = None,
    cocitation: float = 0.0,
    title: float = 0.0,
) -> CandidatePair:
    phrase, probability, pages, links = mention or (None, 0.0, None, None)
    return CandidatePair(
        source_url="/s",
        target_url="/t",
        semantic_sim=sim,
        lexical_sim=lexical,
        title_match=title,
        mention_score=probability,
        mention_phrase=phrase,
        mention_pages=pages,
        mention_links=links,
        cocitation=cocitation,
        shared_neighbors=cocitation,
        already_linked_content=False,
        already_linked_nav=False,
    )


def anchor(text: str, kind: str) -> AnchorChoice:
    sentence = f"Read more about {text} here."
    return AnchorChoice(text, 16, 16 + len(text), sentence, 0, 0, kind, 0.8)


def test_reason_leads_with_the_strongest_evidence() -> None:
    cand = pair(sim=0.55, mention=("Layers Dialog", 0.9, 19, 8))
    target = PageFacts("Layers Dialog", "page", is_orphan=True, click_depth=None)
    reason = build_reason(cand, anchor("Layers Dialog", "title"), target)
    assert reason == (
        'Names "Layers Dialog" (linked by 8 of 19 pages that mention it); related topic; '
        "target is an orphan."
    )
    evidence = reason_evidence(ScoringConfig(), cand, anchor("Layers Dialog", "title"), target)
    strengths = [s for s, _ in evidence]
    assert strengths == sorted(strengths, reverse=True)
    # without the mention, the close topic comes first
    reason = build_reason(pair(sim=0.85), anchor("layer masks", "phrase"), target)
    assert reason.startswith("Closely related topic; ")
    assert reason.endswith('sentence is about "layer masks".') or "orphan" in reason


def test_reason_without_a_sentence_says_so_last() -> None:
    target = PageFacts("Deep page", "page", content_inlinks=4, click_depth=6)
    reason = build_reason(pair(sim=0.8), None, target)
    assert (
        reason == "Closely related topic; target is 6 clicks deep; no sentence fits yet: add one."
    )


@pytest.mark.parametrize(
    "target",
    [
        PageFacts("T", "page", is_orphan=True, click_depth=None),
        PageFacts("T", "blog", content_inlinks=1, click_depth=2),
        PageFacts("T", "glossary", content_inlinks=0, click_depth=7, is_deep=True),
        PageFacts(
            "T",
            "commercial",
            content_inlinks=9,
            click_depth=1,
            business_value=0.6,
            value_notes=["12 conversions", "a priority page"],
        ),
        PageFacts("T", "page", business_value=0.3, value_notes=["a priority page"]),
    ],
)
def test_every_combination_of_evidence_fits_in_25_words(target: PageFacts) -> None:
    mentions = [None, ("Layers", 0.4, 19, 8), (LONG_NAME, 0.9, 120, 118)]
    anchors = [None, anchor("layer masks", "phrase"), anchor(LONG_NAME, "title")]
    anchors += [anchor("the paths tool", "known_anchor")]
    for sim, lexical, mention, cocitation, placed in itertools.product(
        (0.2, 0.5, 0.9), (0.0, 0.4), mentions, (0.0, 0.5), anchors
    ):
        cand = pair(sim, lexical, mention, cocitation, title=0.9)
        reason = build_reason(cand, placed, target)
        words = reason.split()
        assert 3 <= len(words) <= MAX_REASON_WORDS, reason
        assert reason[0].isupper() and reason.endswith("."), reason
        assert "no content link" not in reason and "similarity" not in reason, reason
        assert ";;" not in reason and "  " not in reason, reason
        if placed is None:
            assert reason.endswith("no sentence fits yet: add one."), reason


def test_business_value_reads_as_a_sentence() -> None:
    target = PageFacts("T", "page", business_value=0.9, value_notes=["12 conversions"])
    assert "target has 12 conversions" in build_reason(pair(sim=0.3), None, target).lower()
    target = PageFacts("T", "page", business_value=0.9, value_notes=["a priority page"])
    assert "target is a priority page" in build_reason(pair(sim=0.3), None, target).lower()


def test_long_names_are_quoted_in_four_words() -> None:
    assert quoted(LONG_NAME) == '"The Complete Guide To…"'
    assert quoted("Layers Dialog") == '"Layers Dialog"'


SENTENCE = (
    "Older posts pull traffic toward stronger articles when the site links them from related "
    "pages and keeps the anchors short and descriptive for every reader."
)


@pytest.mark.parametrize(
    "anchor_text", [None, "Older posts", "stronger articles", "related pages", "every reader"]
)
@pytest.mark.parametrize("width", [20, 40, 60, 90])
def test_excerpts_cut_on_word_boundaries(anchor_text: str | None, width: int) -> None:
    text = excerpt(SENTENCE, anchor_text, width)
    inner = text.removeprefix("…").removesuffix("…").replace("«", "").replace("»", "")
    assert inner in SENTENCE
    at = SENTENCE.index(inner)
    assert at == 0 or not SENTENCE[at - 1].isalnum(), text
    end = at + len(inner)
    assert end == len(SENTENCE) or not SENTENCE[end].isalnum(), text
    assert text.startswith("…") == (at > 0) and text.endswith("…") == (end < len(SENTENCE))
    if anchor_text:
        assert f"«{anchor_text}»" in text


def test_excerpt_examples() -> None:
    assert excerpt(SENTENCE, "stronger articles", 40) == "…pull traffic toward «stronger articles»…"
    assert excerpt(SENTENCE, None, 40) == "Older posts pull traffic toward stronger…"
    assert excerpt("A short one.", "short") == "A «short» one."
    assert excerpt(None, None) == "(needs a new sentence)"


def test_demo_reasons_are_at_most_25_words(tmp_path: Path, demo_site, fake_model: str) -> None:
    db, crawl = tmp_path / "demo.duckdb", "demo-reasons"
    crawl_and_run(db, crawl, demo_site.base_url + "/", fake_model, 120, "link_opportunities")
    with open_db(db, read_only=True) as con:
        rows = con.execute(
            "SELECT reason, score, confidence FROM v_opportunities_all WHERE crawl_id = ?", [crawl]
        ).fetchall()
    assert len(rows) > 50
    for reason, _, confidence in rows:
        assert 3 <= len(reason.split()) <= MAX_REASON_WORDS, reason
        assert "no content link" not in reason and 0.0 < confidence <= 1.0
    by_score = sorted(rows, key=lambda r: r[1])
    assert [r[2] for r in by_score] == sorted(r[2] for r in rows)
    # the fitted share of pairs the site links at that score: a probability, never 0 or 1
    assert 0.5 < max(r[2] for r in rows) < 1.0
