"""Filters, priority components, caps, anchor rules and reasons of opportunity scoring."""

from dataclasses import replace

import polars as pl
import pytest

from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.opportunity_batches import (
    ledger_order,
    opportunity_batches,
    score_opportunities,
)
from linkpipe.lib.links.rows import (
    OPPORTUNITY_COLUMNS,
    CandidatePair,
    CannibalisationPair,
    records,
)
from linkpipe.lib.links.scoring import build_reason, select_opportunities
from linkpipe.lib.links.scoring_config import (
    PageFacts,
    ScoringConfig,
    direction_factor,
    target_need,
)
from linkpipe.lib.storage import rows_to_frame


def cand(s, t, sim=0.7, anchor=None, start=0, alts=(), linked=False, title=0.0, mention=None):
    phrase, probability, pages, links = mention or (None, 0.0, None, None)
    best = (
        (
            AnchorChoice(
                anchor, start, start + len(anchor), f"... {anchor} ...", 0, 1, "phrase", 0.8
            ),
        )
        if anchor
        else ()
    )
    return CandidatePair(
        source_url=s,
        target_url=t,
        semantic_sim=sim,
        lexical_sim=0.1,
        title_match=title,
        mention_score=probability,
        mention_phrase=phrase,
        mention_pages=pages,
        mention_links=links,
        cocitation=0.0,
        shared_neighbors=0.0,
        already_linked_content=linked,
        already_linked_nav=False,
        anchors=best + tuple(alts),
    )


def alt(text, start):
    return AnchorChoice(text, start, start + len(text), text, start, 2, "phrase", 0.7)


FACTS = {
    "/a": PageFacts("Post A", "blog", content_inlinks=3, click_depth=1, link_score=80),
    "/b": PageFacts(
        "Guide B", "guide", content_inlinks=0, click_depth=None, is_orphan=True, is_deep=True
    ),
    "/c": PageFacts("Service C", "commercial", content_inlinks=1, click_depth=2, link_score=50),
    "/g": PageFacts("Term G", "glossary", content_inlinks=5, click_depth=2, link_score=40),
}


def test_target_need_components():
    assert target_need(FACTS["/b"]) == pytest.approx(0.35 + 0.20 + 0.30 + 0.15)
    assert target_need(FACTS["/a"]) == pytest.approx(0.30 / 4 + 0.15 * 0.2)


def test_direction_rules():
    cfg = ScoringConfig()
    assert direction_factor(cfg, "blog", "commercial") == 1.15
    assert direction_factor(cfg, "commercial", "blog") == 0.7
    assert direction_factor(cfg, "glossary", "guide") == 0.6
    assert direction_factor(cfg, "blog", "guide") == 1.0
    assert direction_factor(cfg, "guide", "home") == 0.5


def test_filters_linked_rejected_and_self():
    rows, _ = score_opportunities(
        [cand("/a", "/a"), cand("/a", "/b", linked=True), cand("/a", "/c"), cand("/g", "/a")],
        FACTS,
        decisions={("/a", "/c"): "rejected"},
    )
    assert [(r.source_url, r.target_url) for r in rows] == [("/g", "/a")]
    assert rows[0].direction_factor == 0.6 and rows[0].rank == 1


def test_scores_ranks_and_components():
    rows, _ = score_opportunities(
        [
            cand("/a", "/b", anchor="old posts", mention=("Old posts", 0.5, 4, 2)),
            cand("/a", "/c", sim=0.6, anchor="audit service", start=40),
        ],
        FACTS,
    )
    assert [(r.target_url, r.rank) for r in rows] == [("/b", 1), ("/c", 2)]
    top = rows[0]
    # 0.28 semantic (0.7 on the 0.25..0.85 scale) + 0.19 TF-IDF (2 x 0.1) + 0.35 mention (0.5)
    rel = 0.28 * (0.7 - 0.25) / 0.6 + 0.19 * 0.2 + 0.35 * 0.5
    assert top.relevance == pytest.approx(rel, abs=1e-6)
    assert (top.mention_score, top.mention_phrase) == (0.5, "Old posts")
    assert rows[1].relevance == pytest.approx(0.28 * 0.35 / 0.6 + 0.19 * 0.2, abs=1e-6)
    expected = rel * (0.7 + 0.3 * 1.0) * 1.0 * 1.0 * (0.9 + 0.1 * 0.8)
    assert top.score == pytest.approx(expected, abs=1e-6)
    assert top.placement == "in_sentence" and top.anchor_text == "old posts"
    # semantic 0.28 x 0.75 outweighs the mention 0.35 x 0.5; the anchor is the mention
    assert top.reason == (
        'Closely related topic; names "Old posts" (linked by 2 of 4 pages that mention it); '
        "target is an orphan."
    )
    assert "mention" not in rows[1].reason
    assert "no content link" not in top.reason
    # two candidates: the better one is the site's top score, the other at the median
    assert (top.confidence, rows[1].confidence) == (1.0, 0.5)


def test_caps_per_source_and_per_target():
    cfg = ScoringConfig(max_per_source=1, max_per_target=1)
    rows, _ = score_opportunities(
        [
            cand("/a", "/b", anchor="x one"),
            cand("/a", "/c", anchor="x two", start=20),
            cand("/c", "/b", anchor="x three"),
        ],
        FACTS,
        config=cfg,
    )
    assert [(r.source_url, r.target_url) for r in rows] == [("/a", "/b")]


def test_same_anchor_never_for_two_targets_and_varied_per_target():
    rows, _ = score_opportunities(
        [
            cand("/a", "/b", anchor="content audit"),
            cand("/a", "/c", anchor="content audit", alts=[alt("audit service", 60)]),
        ],
        FACTS,
    )
    anchors = {r.target_url: r.anchor_text for r in rows}
    assert anchors == {"/b": "content audit", "/c": "audit service"}
    cfg = ScoringConfig(max_same_anchor_per_target=1)
    rows, _ = score_opportunities(
        [cand("/a", "/b", anchor="old posts"), cand("/c", "/b", anchor="old posts", sim=0.6)],
        FACTS,
        config=cfg,
    )
    second = next(r for r in rows if r.source_url == "/c")
    assert second.placement == "needs_new_sentence" and second.anchor_text is None
    assert "no sentence fits yet" in second.reason


def test_rows_made_batch_by_batch_are_the_rows_made_at_once():
    # one ledger runs over every batch: the phrase "old posts" is used up for /b by the best
    # pair (first batch), so the pair of /c in a later batch takes its alternative, as at once;
    # a batch holds whole sources (/a's two pairs together), the sources by their best pair
    pairs = [
        cand("/a", "/b", anchor="old posts"),
        cand("/c", "/b", anchor="old posts", sim=0.68, alts=[alt("archived posts", 40)]),
        cand("/g", "/b", anchor="old posts", sim=0.66),
        cand("/a", "/c", anchor="old posts", start=30, sim=0.64),
    ]
    cfg = ScoringConfig(max_same_anchor_per_target=1)
    at_once, _ = score_opportunities(pairs, FACTS, config=cfg)
    selection = select_opportunities(pairs, FACTS, config=cfg)
    batches = list(opportunity_batches(selection, FACTS, config=cfg, size=1))
    assert [len(b) for b in batches] == [2, 1, 1] and len(at_once) == 4
    assert [r.record() for b in batches for r in b] == [r.record() for r in at_once]
    assert [(r.source_url, r.target_url) for r in at_once] == [
        ("/a", "/b"), ("/a", "/c"), ("/c", "/b"), ("/g", "/b"),
    ]  # fmt: skip
    anchors = {(r.source_url, r.target_url): r.anchor_text for r in at_once}
    assert anchors == {
        ("/a", "/b"): "old posts",
        ("/c", "/b"): "archived posts",
        ("/g", "/b"): None,
        ("/a", "/c"): None,  # "old posts" on /a already links /b
    }
    assert selection.ranks[ledger_order(selection)].tolist() == [r.rank for r in at_once]
    assert [r.rank for r in at_once] == [1, 2, 1, 1]


def test_a_name_of_the_target_is_not_given_up_for_a_weaker_phrase_when_used_often():
    # the site calls the page "goodstuff" everywhere: every source keeps the name, never the
    # unrelated phrase behind it; a window found for the target stays limited (test above)
    name = AnchorChoice(
        "goodstuff", 10, 19, "Included in goodstuff: yes.", 0, 27, "known_anchor", 1.0
    )
    weak = alt("pages in the wiki", 40)
    rows, _ = score_opportunities(
        [replace(cand(src, "/b"), anchors=(name, weak)) for src in ("/a", "/c", "/g")],
        FACTS,
        config=ScoringConfig(max_same_anchor_per_target=1),
    )
    assert sorted((r.source_url, r.anchor_text) for r in rows) == [
        ("/a", "goodstuff"),
        ("/c", "goodstuff"),
        ("/g", "goodstuff"),
    ]


def test_cannibalisation_reported_not_suggested():
    facts = {
        "/x": PageFacts("Content refresh guide", "guide"),
        "/y": PageFacts("Content refresh guide 2026", "guide"),
    }
    rows, cannibal = score_opportunities([cand("/x", "/y", sim=0.95)], facts)
    assert rows == []
    assert cannibal == [
        CannibalisationPair(
            url_a="/x",
            url_b="/y",
            semantic_sim=0.95,
            title_sim=0.75,
            reason="near-identical topic and purpose: consolidate or differentiate",
        )
    ]


def test_opportunity_columns_are_the_records_column_by_column():
    pairs = [cand("/a", "/b", anchor="old posts"), cand("/c", "/b", sim=0.68)]
    selection = select_opportunities(pairs, FACTS)
    (batch,) = opportunity_batches(selection, FACTS)
    rows = list(batch)
    assert {r.anchor_text for r in rows} == {"old posts", None}  # a NULL in a column
    assert [batch.row(i) for i in range(len(batch))] == rows
    by_column = pl.DataFrame(batch.columns, strict=False)
    by_record = rows_to_frame(records(rows), list(rows[0].record()))
    assert by_column.columns == list(OPPORTUNITY_COLUMNS) == list(rows[0].record())
    assert by_column.schema == by_record.schema and by_column.equals(by_record)
    assert by_column["source_url"].to_list() == [r.source_url for r in rows]


def test_a_batch_column_holds_what_its_pair_gives_row_by_row():
    """Each kept pair's numbers are sliced from the site's arrays, rounded as a stored score
    always was; its reason is the one written from its own parts and its confidence the
    calibration of its rounded score."""
    pairs = [
        cand("/a", "/b", anchor="old posts", mention=("old posts", 0.4, 10, 4)),
        cand("/c", "/b", sim=0.68, title=1.0),
        cand("/a", "/c", sim=0.64),
        cand("/g", "/b", sim=0.61),
    ]
    selection = select_opportunities(pairs, FACTS)
    batches = list(opportunity_batches(selection, FACTS, size=2))
    assert [len(b) for b in batches] == [2, 2]  # /a's two pairs, then /c's and /g's
    site, by_pair = selection.site, {(c.source_url, c.target_url): c for c in pairs}
    order = ledger_order(selection)
    for n, i in enumerate(selection.kept[order].tolist()):
        columns = batches[n // 2].columns
        at = n % 2
        source, target = columns["source_url"][at], columns["target_url"][at]
        assert (site.table.urls[site.table.source[i]], site.table.urls[site.table.target[i]]) == (
            source,
            target,
        )
        score = round(float(site.score[i]), 6)
        assert columns["score"][at] == score and columns["rank"][at] == selection.ranks[order[n]]
        assert columns["relevance"][at] == round(float(site.relevance[i]), 6)
        assert columns["graph_score"][at] == round(float(site.graph[i]), 6)
        assert columns["source_authority"][at] == round(float(site.authority[i]), 6)
        assert columns["target_need"][at] == float(site.need[i]) == site.need[i]
        assert columns["confidence"][at] == selection.calibration.confidence(score)
        parts = (float(site.relevance[i]), float(site.semantic[i]), float(site.graph[i]))
        anchor = batches[n // 2].row(at)
        placed = by_pair[(source, target)].anchors[0] if anchor.anchor_text else None
        reason = build_reason(by_pair[(source, target)], placed, FACTS[target], None, parts)
        assert columns["reason"][at] == reason
        assert columns["source_type"][at] == FACTS[source].page_type
        assert columns["target_type"][at] == FACTS[target].page_type


def test_a_source_without_prose_gets_no_suggestion_and_leaves_the_targets_cap_to_others():
    # /a is code listings alone (no sentence of a paragraph, list, quote or table): an editor
    # has nowhere to put the link, so its pairs give way to /c's within /b's cap of one
    pairs = [cand("/a", "/b", sim=0.9), cand("/c", "/b", anchor="old posts", sim=0.7)]
    cfg = ScoringConfig(max_per_target=1)
    rows, _ = score_opportunities(pairs, FACTS, config=cfg)
    assert [(r.source_url, r.target_url, r.anchor_text) for r in rows] == [
        ("/a", "/b", None)
    ]  # a page with prose by default: the better pair takes the cap
    code_only = FACTS | {"/a": replace(FACTS["/a"], has_prose=False)}
    rows, _ = score_opportunities(pairs, code_only, config=cfg)
    assert [(r.source_url, r.target_url, r.anchor_text) for r in rows] == [
        ("/c", "/b", "old posts")
    ]
    # the pairs of /a still count for the site's calibration and weights: only suggestions go
    selection = select_opportunities(pairs, code_only, config=cfg)
    assert len(selection.site.table) == 2
