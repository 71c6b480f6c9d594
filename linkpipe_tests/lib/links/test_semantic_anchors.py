"""Semantic anchors: candidate windows, their vectors computed in batch, the best per sentence."""

import numpy as np
import pytest

from linkpipe.lib.links.anchors import PUNCT_RE, SourceText, TargetProfile
from linkpipe.lib.links.semantic_anchors import (
    SENTENCE_WEIGHT,
    encode_sources,
    place_anchor_semantic,
    semantic_windows,
    term_hits,
    window_vectors,
)
from linkpipe.lib.links.windows import candidate_windows, edge_word
from linkpipe_tests.lib.links.word_vectors import seeded_unit_vectors

TEXT = (
    "Revisit older articles, then refresh archive pages slowly. "
    "Continue reading about layer masks. "
    "See the brush dynamics."
)
LINK = TEXT.index("brush dynamics")


def _source() -> SourceText:
    first = TEXT.index("Continue")
    second = TEXT.index("See")
    sentences = [
        (0, 0, first - 1, "paragraph"),
        (0, first, second - 1, "paragraph"),
        (1, second, len(TEXT), "paragraph"),
    ]
    return SourceText(TEXT, sentences, [(LINK, LINK + len("brush dynamics"))])


_encode = seeded_unit_vectors


def _vectors(src: SourceText) -> np.ndarray:
    vectors = encode_sources({"/s": src}, _encode).of("/s")
    assert vectors is not None
    return vectors


def _target_vector(*words: str) -> np.ndarray:
    """A target's unit vector: the sum of its words' vectors."""
    vector = _encode(list(words)).sum(axis=0)
    return vector / np.linalg.norm(vector)


def _text(src: SourceText, window: tuple[int, ...]) -> str:
    return src.text[src.tokens[window[0]][1] : src.tokens[window[1] - 1][2]]


def test_windows_stop_at_punctuation_links_and_filler_edges() -> None:
    src = _source()
    texts = [_text(src, w) for w in candidate_windows(src)]
    assert texts == [
        "Revisit older",
        "Revisit older articles",
        "older articles",
        "refresh archive",
        "refresh archive pages",  # never "... slowly": no -ly adverb at the end
        "archive pages",
        "Continue reading",
        "Continue reading about layer",
        "Continue reading about layer masks",
        "reading about layer",
        "reading about layer masks",
        "layer masks",
    ]  # nothing across the comma, nothing in the linked "brush dynamics"


def _windows_one_by_one(src: SourceText, max_words: int = 6) -> list[tuple[int, ...]]:
    """The windows of :func:`candidate_windows` found token by token (its rules, read plainly)."""
    words = src.content_words
    out = []
    for para, s, e, lo, hi in src.ranges:
        for i in range(lo, hi):
            if not edge_word(src, i, last=False):
                continue
            # the first character from which a window starting here would overlap a link
            limit = min((ls for ls, le in src.link_spans if le > src.tokens[i][1]), default=1e9)
            for j in range(i + 1, min(hi, i + max_words)):
                gap = src.text[src.tokens[j - 1][2] : src.tokens[j][1] + 1]
                if PUNCT_RE.search(gap) or src.tokens[j][2] > limit:
                    break
                if words[j] is not None and edge_word(src, j, last=True):
                    out.append((i, j + 1, para, s, e))
    return out


def test_windows_of_every_length_at_once_are_those_found_one_by_one() -> None:
    text = (
        "Layer masks - the quick way - hide parts of a layer; use them often. "
        'Brush dynamics (pressure, tilt) shape every stroke \u2014 see "Paint tools" now. '
        "Selections grow smoothly across painted regions and feathered edges and soft borders"
    )
    cuts = [text.index("Brush"), text.index("Selections")]
    sentences = [(0, 0, cuts[0] - 1, "paragraph"), (0, cuts[0], cuts[1] - 1, "paragraph")]
    link = text.index("painted regions")
    src = SourceText(text, [*sentences, (1, cuts[1], len(text), "paragraph")], [(link, link + 15)])
    found = candidate_windows(src)
    assert list(found) == _windows_one_by_one(src) and len(found) == 17
    assert {j - i for i, j, *_ in found} == {2, 3, 4, 5}
    texts = {src.text[src.tokens[i][1] : src.tokens[j - 1][2]] for i, j, *_ in found}
    assert "Layer masks" in texts and not any("masks - the" in t for t in texts)  # " - " cuts
    assert not any("across painted" in t for t in texts)  # never into the link


def test_window_vectors_blend_words_and_sentence() -> None:
    src = _source()
    encoded = encode_sources({"/s": src}, _encode)
    # one table row per distinct content word (and the zero row), one table row per token
    assert encoded.table.shape == (1 + len({w for w in src.content_words if w}), 16)
    vectors = encoded.of("/s")
    assert vectors is not None and vectors.shape == (len(src.tokens), 16)
    assert encoded.of("/other") is None
    assert not vectors[src.stems.index("then")].any()  # a stopword has no vector
    windows = window_vectors(src, vectors)
    row = [_text(src, w) for w in windows.windows].index("refresh archive pages")
    words = _encode(["refresh", "archive", "pages"]).sum(axis=0)
    sentence_words = ["revisit", "older", "articles", "refresh", "archive", "pages", "slowly"]
    sentence = _encode(sentence_words).sum(axis=0)
    blend = (1 - SENTENCE_WEIGHT) * words / np.linalg.norm(words)
    blend += SENTENCE_WEIGHT * sentence / np.linalg.norm(sentence)
    target = _encode(["archive"])[0]
    expected = float(blend @ target / np.linalg.norm(blend))
    assert windows.sims(target)[row] == pytest.approx(expected, abs=1e-6)


def _blend_cosines(src: SourceText, vectors: np.ndarray, target: np.ndarray) -> list[float]:
    """Every window's cosine with ``target`` from its blended vector, made window by window."""

    def unit(v: np.ndarray) -> np.ndarray:
        n = np.linalg.norm(v)
        return v / n if n > 0 else v

    ranges = {(s, e): (lo, hi) for _, s, e, lo, hi in src.ranges}
    out = []
    for i, j, _, s, e in window_vectors(src, vectors).windows:
        lo, hi = ranges[(s, e)]
        sentence = unit(vectors[lo:hi].sum(axis=0))
        blend = (1 - SENTENCE_WEIGHT) * unit(vectors[i:j].sum(axis=0))
        out.append(float(unit(blend + SENTENCE_WEIGHT * sentence) @ target))
    return out


def test_window_cosines_without_a_window_matrix_equal_the_blended_vectors_cosines() -> None:
    """A window's cosine comes from word-level sums (no window matrix): the same as from its
    blended vector, for windows of two to six words, at the end of the text too, with words
    without a vector and a sentence without any."""
    text = (
        "Revisit older articles, then refresh archive pages slowly. The of and. "
        "Layer masks blend brush dynamics across every painted stroke"
    )
    parts = [text.index("The of"), text.index("Layer")]
    sentences = [(0, 0, parts[0] - 1, "paragraph"), (0, parts[0], parts[1] - 1, "paragraph")]
    src = SourceText(text, [*sentences, (1, parts[1], len(text), "paragraph")])
    vectors = _vectors(src)
    windows = window_vectors(src, vectors)
    lengths = {j - i for i, j, *_ in windows.windows}
    assert lengths == {2, 3, 4, 5, 6} and windows.windows[-1][1] == len(src.tokens)
    rng = np.random.default_rng(0)
    for _ in range(3):
        target = rng.standard_normal(16)
        target /= np.linalg.norm(target)
        expected = _blend_cosines(src, vectors, target)
        assert windows.sims(target) == pytest.approx(expected, abs=1e-6)


def test_a_targets_window_cosines_are_computed_once_for_a_source() -> None:
    """A placement waiting for parses runs again each round: its cosines are not recomputed."""
    src = _source()
    windows = window_vectors(src, _vectors(src))
    target_vec = _target_vector("layer", "masks")
    target = TargetProfile("/t", [("Layer masks", "title")], {"mask": 1.0})
    first = semantic_windows(src, windows, target, target_vec)
    held = windows.target_sims["/t"]
    assert held.tolist() == windows.sims(target_vec).tolist()
    assert semantic_windows(src, windows, target, target_vec) == first
    assert windows.target_sims["/t"] is held and list(windows.target_sims) == ["/t"]


def test_best_window_per_sentence_exact_names_first() -> None:
    src = _source()
    windows = window_vectors(src, _vectors(src))
    target_vec = _target_vector("continue", "reading")
    target = TargetProfile("/t", [("Layer masks", "title")], {"mask": 1.0})
    # one window per sentence, best first, never the generic "Continue reading" (0.96), never
    # a window that is no phrase ("Continue reading about layer" cuts "layer masks", "refresh
    # archive" cuts "archive pages"): the next best well-formed one takes its place
    best = semantic_windows(src, windows, target, target_vec)
    assert [(c.anchor_text, c.quality) for c in best] == [
        ("reading about layer masks", 0.8121),
        ("older articles", 0.0),
    ]
    # the exact title comes first, and a window overlapping it gives way
    choices = place_anchor_semantic(src, windows, target, target_vec, min_quality=0.0)
    assert [(c.anchor_text, c.start, c.source_kind) for c in choices] == [
        ("layer masks", TEXT.index("layer masks"), "title"),
        ("older articles", TEXT.index("older"), "semantic"),
    ]
    assert choices[0].sentence == "Continue reading about layer masks."
    assert choices[0].sentence_start == TEXT.index("Continue")


def test_term_hits_of_many_targets_at_once_count_each_targets_words() -> None:
    src = _source()
    windows = window_vectors(src, _vectors(src))
    masks = TargetProfile("/masks", [], {"layer": 1.0, "mask": 1.0, "unused": 0.0})
    archive = TargetProfile("/archive", [], {"archiv": 1.0, "page": 0.5})
    both = term_hits(src, [masks, archive], windows)
    texts = [_text(src, w) for w in windows.windows]
    assert both.shape == (len(texts), 2) and both.dtype == np.float32
    by_text = dict(zip(texts, both.tolist(), strict=True))
    assert by_text["layer masks"] == [2.0, 0.0]
    assert by_text["refresh archive pages"] == [0.0, 2.0]
    assert by_text["Continue reading about layer"] == [1.0, 0.0]
    for column, target in enumerate((masks, archive)):  # the same as one target at a time
        assert (term_hits(src, [target], windows)[:, 0] == both[:, column]).all()


def test_windows_below_the_minimum_quality_are_never_judged() -> None:
    from linkpipe.lib.text.parsing import load_parser
    from linkpipe.lib.text.phrases import PhraseJudge

    src = _source()
    src.judge = PhraseJudge(load_parser())
    windows = window_vectors(src, _vectors(src))
    target_vec = _target_vector("continue", "reading")
    target = TargetProfile("/t", [("Layer masks", "title")], {"mask": 1.0})
    kept = semantic_windows(src, windows, target, target_vec, min_quality=0.5)
    assert [(c.anchor_text, c.quality) for c in kept] == [("reading about layer masks", 0.8121)]
    # "older articles" (quality 0.0) would be dropped anyway: its sentence is not parsed
    assert list(src.judge.cache) == ["Continue reading about layer masks."]
    every = semantic_windows(src, windows, target, target_vec)
    assert [c for c in every if c.quality >= 0.5] == kept


def test_placing_in_rounds_parses_only_the_judged_sentences_in_batches_with_the_same_result():
    from linkpipe.lib.links.parse_rounds import place_in_rounds
    from linkpipe.lib.text.parsing import load_parser
    from linkpipe.lib.text.phrases import PhraseJudge

    class CountingJudge(PhraseJudge):
        def __init__(self) -> None:
            super().__init__(load_parser())
            self.batches: list[list[str]] = []
            self.alone: list[str] = []

        def prepare(self, sentences):  # type: ignore[no-untyped-def]
            todo = [s for s in sentences if s not in self.cache]
            if todo:
                self.batches.append(todo)
            super().prepare(todo)

        def parse(self, sentence):  # type: ignore[no-untyped-def]
            if sentence not in self.cache:
                self.alone.append(sentence)
            return super().parse(sentence)

    targets = {
        "masks": TargetProfile("/masks", [("Layer masks", "title")], {"layer": 1.0, "mask": 1.0}),
        "archive": TargetProfile("/archive", [], {"archiv": 1.0, "refresh": 0.5}),
    }
    results = {}
    for rounds in (True, False):
        src = _source()
        src.judge = judge = CountingJudge()
        vecs = window_vectors(src, _vectors(src))

        def job(target: TargetProfile, src: SourceText = src, vecs=vecs):  # type: ignore[no-untyped-def]
            return place_anchor_semantic(src, vecs, target, vecs.words[0], min_quality=-1.0)

        jobs = {name: (src, lambda t=t: job(t)) for name, t in targets.items()}
        results[rounds] = (
            place_in_rounds(jobs) if rounds else {n: j() for n, (_, j) in jobs.items()}
        )
        if rounds:
            assert judge.alone == []  # every parse in a batch
            assert sum(map(len, judge.batches)) == len(judge.cache)  # each sentence once
            judged = {c.sentence for found in results[True].values() for c in found}
            assert judged <= set(judge.cache)
            assert "See the brush dynamics." not in judge.cache  # no window there: never parsed
    assert results[True] == results[False]
    assert [c.anchor_text for c in results[True]["masks"]][0] == "layer masks"


REPEATED = (
    "Paint layer masks with a soft brush. Invert layer masks for the opposite selection. "
    "Feather layer masks at their edges. Adjust the alpha channel of a layer."
)


def _repeated_source() -> SourceText:
    bounds, start = [], 0
    for sentence in REPEATED.split(". "):
        end = start + len(sentence.rstrip(".")) + 1
        bounds.append((len(bounds), start, end, "paragraph"))
        start = end + 1
    return SourceText(REPEATED, bounds, [])


def test_a_pairs_alternatives_are_distinct_texts_so_the_ledger_can_fall_back() -> None:
    from linkpipe.lib.links.anchor_ledger import AnchorLedger

    src = _repeated_source()
    windows = window_vectors(src, _vectors(src))
    target_vec = _target_vector("layer", "masks")
    masks = TargetProfile("/masks", [], {"layer": 1.0, "mask": 1.0})
    # "layer masks" stands in three sentences: it is one alternative, not three (the ledger
    # refuses a text that links another target on the page wherever the text stands)
    found = semantic_windows(src, windows, masks, target_vec, limit=4)
    assert [(c.anchor_text, c.start) for c in found] == [
        ("layer masks", REPEATED.index("layer masks for")),
        ("Paint layer masks", 0),
        ("Feather layer masks", REPEATED.index("Feather")),
        ("alpha channel", REPEATED.index("alpha")),
    ]
    # exact mentions first; windows that would repeat or overlap them give way in the search
    named = TargetProfile("/masks", [("Layer masks", "title")], {"layer": 1.0, "mask": 1.0})
    choices = place_anchor_semantic(src, windows, named, target_vec, min_quality=-1.0, limit=5)
    assert [(c.anchor_text, c.start, c.source_kind) for c in choices] == [
        ("layer masks", REPEATED.index("layer"), "title"),
        ("layer masks", REPEATED.index("layer masks for"), "title"),
        ("layer masks", REPEATED.index("layer masks at"), "title"),
        ("opposite selection", REPEATED.index("opposite"), "semantic"),
        ("alpha channel", REPEATED.index("alpha"), "semantic"),
    ]  # before, the windows "Paint/Invert/Feather layer masks" (dropped: they overlap the
    # mentions) took the three places of the search
    # two targets whose best window is the same text: the second gets its next text
    ledger = AnchorLedger(max_same_anchor_per_target=2)
    first = ledger.pick("/s", "/masks", found)
    second = ledger.pick("/s", "/masking", found)
    assert first is not None and first.anchor_text == "layer masks"
    assert second is not None and second.anchor_text == "Paint layer masks"


def test_names_that_fill_the_limit_leave_the_windows_unsearched_and_their_sentences_unparsed():
    from linkpipe.lib.links.semantic_anchors import semantic_placements
    from linkpipe.lib.text.parsing import load_parser
    from linkpipe.lib.text.phrases import PhraseJudge

    named = TargetProfile("/masks", [("Layer masks", "title")], {"layer": 1.0, "mask": 1.0})
    target_vec = _target_vector("layer", "masks")
    placed = {}
    for limit in (2, 3, 4, 5):
        src = _repeated_source()
        src.judge = PhraseJudge(load_parser())
        windows = window_vectors(src, _vectors(src))
        choices, more = semantic_placements(
            src, windows, named, target_vec, -1.0, limit, None, frozenset(), None
        )
        placed[limit] = ([(c.anchor_text, c.start, c.source_kind) for c in choices], more)
        if limit <= 3:  # three mentions: the windows' sentences are never parsed
            assert "Adjust the alpha channel of a layer." not in src.judge.cache
    mentions = [("layer masks", REPEATED.index(at), "title") for at in ("layer", "layer masks for")]
    assert placed[2] == (mentions, True)  # more may follow: a larger limit finds it
    assert placed[3][0][:2] == mentions and placed[3][1] is True
    assert placed[4][0] == placed[5][0][:4]  # each limit's list is the next one's prefix
    assert placed[5][0][3:] == [
        ("opposite selection", REPEATED.index("opposite"), "semantic"),
        ("alpha channel", REPEATED.index("alpha"), "semantic"),
    ]
