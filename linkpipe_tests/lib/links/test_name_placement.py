"""Placing a pair on its target's names without repairing the spans (the candidate step's):
the same names kept as with repairs, each the name's own words, and a sentence parsed only
for a one-word name or a link the repair could reach (real parser)."""

import re

from linkpipe.lib.content.extraction import extract_main_content
from linkpipe.lib.links.anchors import SourceText, TargetProfile, target_phrases
from linkpipe.lib.links.name_anchors import exact_mentions, judged, name_hits
from linkpipe.lib.text.parsing import load_parser
from linkpipe.lib.text.phrases import PhraseJudge, repair_reach

HTML = """<html><body><main><article><h1>Audits</h1>
<p>A content audit checklist helps you find pages that lost clicks.</p>
<p>Read our <a href="/guide/">audit guide</a> before the content audit checklist is due.</p>
<p>Teams keep a <a href="/c/">content audit checklist</a> for every quarterly review.</p>
<p>Every content audit checklist needs owners, dates and a long tail of pages to check,
so plan it early and <a href="/plan/">share the plan</a>.</p>
<p>Each Checklist has owners. Editors checklist the pages by hand.</p>
<p>Find pages that <a href="/r/">recently</a> lost clicks in search.</p>
</article></main></body></html>"""

NAMES = TargetProfile(
    "http://a.test/checklist/",
    target_phrases("Content audit checklist", "", "", []),
    {"audit": 1.0},
)
LOST = TargetProfile(
    "http://a.test/lost-clicks/", target_phrases("Lost clicks", "", "", []), {"click": 1.0}
)
ONE_WORD = TargetProfile(
    "http://a.test/checklist-page/",
    [("Checklist", "title")],
    {},
    frozenset({("checklist",)}),
)


def _source(judge: PhraseJudge) -> SourceText:
    content = extract_main_content(HTML, "http://a.test/blog/x/")
    sents = [(s.paragraph_idx, s.start, s.end, s.block_kind) for s in content.sentences]
    links = [(link.start, link.end) for link in content.links]
    return SourceText(content.text, sents, links, judge)


def _fresh() -> tuple[SourceText, PhraseJudge]:
    judge = PhraseJudge(load_parser())
    return _source(judge), judge


def test_the_same_names_are_kept_with_or_without_repairs():
    for target in (NAMES, LOST, ONE_WORD):
        repaired = exact_mentions(_fresh()[0], target, repair=True)
        src, _ = _fresh()
        own_words = exact_mentions(src, target, repair=False)
        assert [(c.sentence_start, c.quality, c.source_kind) for c in own_words] == [
            (c.sentence_start, c.quality, c.source_kind) for c in repaired
        ]
        for c in own_words:  # each span is the name's own words
            assert c.anchor_text.lower() in {"content audit checklist", "lost clicks", "checklist"}
            assert src.text[c.start : c.end] == c.anchor_text
    kept = [c.sentence[:20] for c in exact_mentions(_fresh()[0], NAMES, repair=False)]
    # dropped: the name inside a link; kept: a link within reach the phrase stops at, and one
    # too far away to reach
    assert kept == ["A content audit chec", "Read our audit guide", "Every content audit "]
    # dropped: the phrase around the name takes in the link ("that recently lost clicks")
    kept = [c.sentence[:20] for c in exact_mentions(_fresh()[0], LOST, repair=False)]
    assert kept == ["A content audit chec"]


def test_only_the_sentences_a_placement_judges_are_parsed():
    src, judge = _fresh()
    exact_mentions(src, NAMES, repair=False)
    # not parsed: no link in the sentence, the name inside a link, a link out of reach
    assert sorted(s[:20] for s in judge.cache) == ["Read our audit guide"]
    hits = name_hits(src, NAMES)
    ranges = [src.ranges[h[0]] for h in hits if judged(src, h)]
    assert {src.text[r[1] : r[2]] for r in ranges} == set(judge.cache)  # what a shard loads
    src, judge = _fresh()
    exact_mentions(src, LOST, repair=False)
    assert sorted(judge.cache) == ["Find pages that recently lost clicks in search."]
    src, judge = _fresh()
    exact_mentions(src, ONE_WORD, repair=False)  # a one-word name: is it used as a noun?
    assert "Each Checklist has owners." in judge.cache
    assert "Editors checklist the pages by hand." in judge.cache


def test_a_repair_never_leaves_its_reach():
    judge = PhraseJudge(load_parser())
    sentence = (
        "Before the long quarterly review, every content audit checklist that editors keep "
        "needs owners, dates and a plan for the pages that lost their clicks last year."
    )
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", sentence)]
    repaired = 0
    for first in range(len(words)):
        for last in range(first, min(first + 3, len(words))):
            start, end = words[first][0], words[last][1]
            lo, hi = repair_reach(sentence, start, end)
            assert lo <= start and end <= hi and hi - lo < len(sentence)
            span = judge.repair(sentence, start, end)
            if span is not None:
                assert lo <= span[0] and span[1] <= hi
                repaired += span != (start, end)
    assert repaired > 10  # spans were widened, and each stayed within the reach
