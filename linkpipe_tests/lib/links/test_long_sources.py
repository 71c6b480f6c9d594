"""Long pages are placed in parts: parts are exact slices of the page, and the merged choices
point into the page's own text."""

from __future__ import annotations

import numpy as np

from linkpipe.lib.links.anchors import AnchorChoice, SourceText, TargetProfile
from linkpipe.lib.links.candidates import candidate_rows
from linkpipe.lib.links.long_sources import is_long, merge_choices, split_source
from linkpipe.lib.links.retrieval import CandidateLimits, retrieve
from linkpipe.lib.links.semantic_anchors import (
    encode_sources,
    place_anchor_semantic,
    window_vectors,
)
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.site_models import SitePage
from linkpipe.lib.text.phrases import PhraseJudge
from linkpipe.lib.vectors.ann import build_index

TOPICS = ["layer masks", "paint brushes", "colour curves", "selection tools"]


def _long_page(n_sentences: int) -> SourceText:
    sentences, spans, parts, offset = [], [], [], 0
    for i in range(n_sentences):
        topic = TOPICS[i % len(TOPICS)]
        text = f"Sentence {i} explains how {topic} change the picture in step {i}."
        sentences.append((i // 3, offset, offset + len(text), "paragraph"))
        if i % 5 == 0:  # an existing link over the topic words
            at = offset + text.index(topic)
            spans.append((at, at + len(topic)))
        parts.append(text)
        offset += len(text) + 1
    return SourceText(" ".join(parts), sentences, spans, judge=PhraseJudge(None))


def test_a_long_page_splits_into_exact_slices_of_whole_sentences():
    src = _long_page(200)
    parts = split_source(src, part_words=300)
    assert len(parts) > 3
    assert parts[0][0] == 0
    seen = []
    for offset, part in parts:
        assert len(part.tokens) <= 300 + 20  # a part ends with its last whole sentence
        assert part.text == src.text[offset : offset + len(part.text)]
        for para, s, e, kind in part.sentences:
            assert (para, s + offset, e + offset, kind) in src.sentences
            seen.append((para, s + offset, e + offset, kind))
        for s, e in part.link_spans:
            assert (s + offset, e + offset) in src.link_spans
    assert seen == sorted(src.sentences, key=lambda s: s[1])  # every sentence, once, in order
    assert sum(len(p.link_spans) for _, p in parts) == len(src.link_spans)


def test_a_short_page_is_its_own_single_part():
    src = _long_page(10)
    assert not is_long(src)
    assert split_source(src) == [(0, src)]


def test_merged_choices_point_into_the_page_exact_names_first():
    src = _long_page(200)
    profile = TargetProfile("/brushes", [("paint brushes", "title")], {"brush": 1.0, "paint": 1.0})
    per_part = []
    for offset, part in split_source(src, part_words=300):
        vecs = window_vectors(part, encode_sources({"p": part}, _hash_words).of("p"))
        choices = place_anchor_semantic(part, vecs, profile, _hash_words(["paint brushes"])[0])
        per_part.append((offset, choices))
    merged = merge_choices(per_part)
    assert merged and merged[0].source_kind == "title"
    for choice in merged:
        assert src.text[choice.start : choice.end] == choice.anchor_text
        assert src.text[choice.sentence_start :].startswith(choice.sentence)
        assert not any(s < choice.end and choice.start < e for s, e in src.link_spans)
    # the best exact mention of the first part wins a tie with later parts
    first_part_end = split_source(src, part_words=300)[1][0]
    assert merged[0].start < first_part_end


def test_merge_prefers_exact_names_then_quality_and_shifts_offsets():
    name = AnchorChoice("paint brushes", 5, 18, "Use paint brushes.", 1, 0, "title", 0.9)
    window = AnchorChoice("brush strokes", 2, 15, "Brush strokes matter.", 0, 0, "semantic", 0.95)
    merged = merge_choices([(100, [window]), (200, [name])])
    assert [c.source_kind for c in merged] == ["title", "semantic"]
    assert (merged[0].start, merged[0].end, merged[0].sentence_start) == (205, 218, 201)
    assert (merged[1].start, merged[1].end, merged[1].sentence_start) == (102, 115, 100)


def _hash_words(words):
    """Deterministic 16-dimension word vectors (a word's letters hashed), unit length."""
    out = np.zeros((len(words), 16), np.float32)
    for i, word in enumerate(words):
        for ch in word:
            out[i, ord(ch) % 16] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1.0)


def test_a_long_source_gets_its_anchor_from_a_later_part_through_the_candidates():
    long_text = _long_page(450)  # more than PART_WORDS tokens
    mention = " Read about the GDAL library before you start."
    text = long_text.text + mention
    sentences = [*long_text.sentences, (999, len(long_text.text) + 1, len(text), "paragraph")]
    src = SourceText(text, sentences, long_text.link_spans, judge=PhraseJudge(None))
    assert is_long(src) and len(split_source(src)) >= 2
    pages = [SitePage("/long", "Long", "", "", text), SitePage("/gdal", "GDAL", "", "", "GDAL.")]
    vectors = np.array([[1, 0], [0.6, 0.8]], dtype=np.float32)
    site = SiteContext(pages, vectors, {}, {}, {"/gdal": ["GDAL library"]})
    ann = build_index(site.vectors, [p.url for p in pages])
    rows = candidate_rows(
        site,
        retrieve(site, ["/long"], {"/long": src}, ann, CandidateLimits(k=1)),
        {"/long": src},
        None,
        None,
    )
    (row,) = rows
    best = row.best_anchor
    assert best is not None and best.anchor_text == "GDAL library"
    assert text[best.start : best.end] == "GDAL library"
    assert best.start > len(long_text.text)  # found in the last part, at its page offset


def test_a_long_source_leaves_no_parse_of_its_sentences_in_the_cache():
    from linkpipe.lib.text.parsing import load_parser

    judge = PhraseJudge(load_parser())
    assert judge.parsed
    long_text = _long_page(450)
    src = SourceText(long_text.text, long_text.sentences, long_text.link_spans, judge=judge)
    short = SourceText("Layer masks change the picture.", [(0, 0, 31, "paragraph")], judge=judge)
    judge.prepare([short.text])
    pages = [SitePage("/long", "Long", "", "", src.text), SitePage("/masks", "Layer masks", "", "", "")]
    site = SiteContext(pages, np.array([[1, 0], [0.6, 0.8]], np.float32), {}, {}, {})
    found = retrieve(site, ["/long"], {"/long": src}, build_index(site.vectors, ["/long", "/masks"]),
                     CandidateLimits(k=1))  # fmt: skip
    (row,) = candidate_rows(site, found, {"/long": src}, None, None)
    assert row.best_anchor is not None and row.best_anchor.anchor_text == "layer masks"
    assert judge.parsed_sentences > 1  # the parts' judged sentences were parsed ...
    assert list(judge.cache) == ["Layer masks change the picture."]  # ... and let go after it
