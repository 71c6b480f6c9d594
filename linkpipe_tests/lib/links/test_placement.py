"""Placement after the selection: candidate rows carry the targets' names only; the kept pairs
get names and semantic windows (:func:`place_kept`), whatever other pairs of the source are
kept with them, and a pair whose anchor key is known is not placed again."""

from dataclasses import replace

import numpy as np

from linkpipe.lib.links.anchor_ledger import Prefix
from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.candidates import candidate_rows
from linkpipe.lib.links.placement import place_kept
from linkpipe.lib.links.retrieval import CandidateLimits, retrieve
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.semantic_anchors import encode_sources
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.vectors.ann import build_index
from linkpipe_tests.lib.links.test_ubiquitous_anchors import _encode, _site, _source


def _rows(site: SiteContext, src: SourceText, names_only: bool) -> list[CandidatePair]:
    """The candidate rows of /overview with its two nearest pages, keyed for reuse."""
    ann = build_index(site.vectors, [p.url for p in site.pages])
    texts = {"/overview": src}
    found = retrieve(site, ["/overview"], texts, ann, CandidateLimits(k=2, k_lexical=0))
    words = None if names_only else encode_sources(texts, _encode)
    reuse = AnchorReuse("m", True)
    return candidate_rows(site, found, texts, words, reuse, names_only=names_only)


def _anchors(pair: CandidatePair) -> list[tuple[str, str]]:
    return [(c.anchor_text, c.source_kind) for c in pair.anchors]


def test_the_candidate_step_places_names_only_and_kept_pairs_get_their_windows() -> None:
    src = _source()
    site, _ = _site(src, "Ikiwiki plugins")
    names = {r.target_url: r for r in _rows(site, src, names_only=True)}
    full = {r.target_url: r for r in _rows(site, src, names_only=False)}
    assert "/t" in names and names.keys() == full.keys()
    assert _anchors(names["/t"]) == [("ikiwiki plugins", "title")]  # its name, no window
    assert _anchors(full["/t"]) == [("ikiwiki plugins", "title"), ("markup features", "semantic")]
    for target, row in names.items():  # the same evidence and title match either way
        assert replace(row, anchors=()) == replace(full[target], anchors=())
        assert all(c.source_kind not in ("semantic", "phrase") for c in row.anchors)
    kept = place_kept(site, [names["/t"]], {"/overview": src}, _encode, lazy=False)
    assert kept[0].anchors == full["/t"].anchors and kept[0].anchor_key == names["/t"].anchor_key
    # lazily, as far as the anchor ledger placing the source alone looks: its free first one
    (first,) = place_kept(site, [names["/t"]], {"/overview": src}, _encode)
    assert isinstance(first.anchors, Prefix) and first.anchors == full["/t"].anchors[:1]
    # a target without a name in the source: no anchor before the selection, a window after
    plain, _ = _site(_source(), "Extending the wiki")
    (row,) = [r for r in _rows(plain, src, names_only=True) if r.target_url == "/t"]
    assert row.anchors == () and row.title_match == 0.0
    (placed,) = place_kept(plain, [row], {"/overview": src}, _encode)
    assert _anchors(placed) == [("markup features", "semantic")]


def test_a_kept_pair_is_placed_alike_whatever_is_kept_beside_it_and_once_per_key() -> None:
    src = _source()
    site, _ = _site(src, "Extending the wiki")
    rows = sorted(_rows(site, src, names_only=True), key=lambda r: r.target_url == "/t")
    assert len(rows) == 2 and rows[-1].target_url == "/t"
    alone = place_kept(site, rows[-1:], {"/overview": _source()}, _encode)
    together = place_kept(site, rows, {"/overview": _source()}, _encode)
    assert together[-1].anchors == alone[0].anchors != ()
    assert [r.target_url for r in together] == [r.target_url for r in rows]  # order kept
    # known keys: taken as stored, without a word encoded or a text read
    key = rows[-1].anchor_key
    assert key is not None
    stored = (alone[0].anchors[0],)
    reuse = AnchorReuse("m", True, {key: stored})

    def no_encoding(words: object) -> np.ndarray:
        raise AssertionError("a known pair is not encoded")

    (taken,) = place_kept(site, rows[-1:], {}, no_encoding, reuse)
    assert taken.anchors == stored and reuse.reused == 1
