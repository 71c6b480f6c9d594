"""Anchor keys (``lib/links/anchor_reuse.py``): what a stored placement may be reused for."""

from __future__ import annotations

import pytest

from linkpipe.lib.links import anchor_reuse
from linkpipe.lib.text.parsing import current_parser_identity


def test_a_key_names_the_parser_model_and_kind_of_placement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reuse = anchor_reuse.AnchorReuse("model-a", semantic=True)
    key = reuse.key("source-digest", "target-digest")
    assert len(key) == 32 and key == reuse.key("source-digest", "target-digest")
    assert current_parser_identity() in reuse.salt
    assert anchor_reuse.AnchorReuse("model-b", True).key("source-digest", "target-digest") != key
    assert anchor_reuse.AnchorReuse("model-a", False).key("source-digest", "target-digest") != key
    # an upgraded spaCy or pipeline judges anchors anew: no placement of the old one is reused
    monkeypatch.setattr(anchor_reuse, "current_parser_identity", lambda: "en_core_web_sm==9.9")
    upgraded = anchor_reuse.AnchorReuse("model-a", semantic=True)
    assert upgraded.key("source-digest", "target-digest") != key
    assert "en_core_web_sm==9.9" in upgraded.salt


def test_the_placing_code_digest_reads_every_module_that_decides_a_placement() -> None:
    # the kept pairs' placements are stored by key (kept_placements): a change to the code that
    # places them (how many placements a pair keeps, names only or windows) must change the key
    from importlib import resources

    modules = {name for _, names in anchor_reuse._PLACING_MODULES for name in names}
    assert {"anchors.py", "semantic_anchors.py", "placement.py", "long_sources.py"} <= modules
    for package, names in anchor_reuse._PLACING_MODULES:
        assert all((resources.files(package) / name).is_file() for name in names)


def test_a_name_key_reads_the_targets_names_not_its_vector_terms_or_model() -> None:
    from linkpipe.lib.links.anchors import TargetProfile

    phrases = [("Layer masks", "title"), ("masks", "known_anchor")]
    before = TargetProfile("/masks/", phrases, {"mask": 0.7, "layer": 0.3}, frozenset())
    # an edit of the page's body: other terms and weights, the same names
    after = TargetProfile("/masks/", phrases, {"mask": 0.2, "paint": 0.9}, frozenset())
    assert anchor_reuse.names_digest(before.keys) == anchor_reuse.names_digest(after.keys)
    assert anchor_reuse.target_key(before, b"v1") != anchor_reuse.target_key(after, b"v2")
    # a one-word name the site now links to the page: placing on names reads it
    single = TargetProfile("/masks/", phrases, {}, frozenset({("mask",)}))
    assert anchor_reuse.names_digest(single.keys) != anchor_reuse.names_digest(before.keys)
    # the same names as another kind of name weigh differently
    retitled = TargetProfile("/masks/", [("Layer masks", "h1")], {}, frozenset())
    assert anchor_reuse.names_digest(retitled.keys) != anchor_reuse.names_digest(before.keys)

    names = anchor_reuse.names_digest(before.keys)
    a, b = anchor_reuse.AnchorReuse("model-a", True), anchor_reuse.AnchorReuse("model-b", False)
    key = a.names_key("source-digest", names)
    assert len(key) == 32 and key == b.names_key("source-digest", names)
    assert key != a.key("source-digest", names)  # never mistaken for an anchor key
    assert a.names_key("other-source", names) != key
    assert current_parser_identity() in a.names_salt
