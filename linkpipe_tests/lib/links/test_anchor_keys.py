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
