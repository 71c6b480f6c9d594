"""The anchor ledger places a page's kept pairs together: a pair left without a placement gets
one that an earlier pair of the page gives up for another of its own."""

from linkpipe.lib.links.anchor_ledger import AnchorLedger, Prefix, clash, complete
from linkpipe.lib.links.anchors import AnchorChoice

TEXT = "Refresh old posts yearly. Archived posts and old posts need care. See the editing guide."


def window(text: str, occurrence: int = 0, kind: str = "semantic") -> AnchorChoice:
    """A placement of ``text`` at its ``occurrence``-th place in :data:`TEXT`."""
    start = -1
    for _ in range(occurrence + 1):
        start = TEXT.index(text, start + 1)
    return AnchorChoice(text, start, start + len(text), TEXT, 0, 0, kind, 0.8)


def test_a_pair_left_without_a_placement_takes_one_an_earlier_pair_moves_from():
    ledger = AnchorLedger(max_same_anchor_per_target=2)
    best = [window("old posts"), window("Archived posts")]
    only = [window("old posts", 1)]  # the same text elsewhere: one text links one page
    placed = ledger.place_source("/s", [("/guide", best), ("/archive", only)])
    assert placed == [window("Archived posts"), window("old posts", 1)]
    # pair by pair, as before, the second pair had nothing
    alone = AnchorLedger(max_same_anchor_per_target=2)
    assert alone.pick("/s", "/guide", best) == window("old posts")
    assert alone.pick("/s", "/archive", only) is None


def test_an_overlapping_placement_is_freed_the_same_way():
    ledger = AnchorLedger(max_same_anchor_per_target=2)
    best = [window("old posts need care"), window("editing guide")]
    only = [window("posts need")]  # inside the best pair's first placement
    assert clash(best[0], only[0]) and not clash(best[1], only[0])
    placed = ledger.place_source("/s", [("/care", best), ("/posts", only)])
    assert placed == [window("editing guide"), window("posts need")]


def test_no_move_without_a_free_placement_for_the_holder_and_the_page_stays_consistent():
    ledger = AnchorLedger(max_same_anchor_per_target=2)
    best = [window("old posts")]  # nothing to move to
    second = [window("old posts", 1)]
    third = [window("old posts", 1), window("Refresh")]  # "old posts" still links /a
    placed = ledger.place_source("/s", [("/a", best), ("/b", second), ("/c", third)])
    assert placed == [window("old posts"), None, window("Refresh")]


def test_a_placement_two_pairs_hold_is_not_freed():
    ledger = AnchorLedger(max_same_anchor_per_target=2)
    first = [window("old posts", 1), window("See the editing guide")]
    second = [window("Archived posts"), window("Refresh")]
    wide = [window("Archived posts and old posts")]  # holds both texts' places
    placed = ledger.place_source("/s", [("/a", first), ("/b", second), ("/c", wide)])
    assert placed == [window("old posts", 1), window("Archived posts"), None]


def test_the_holder_never_moves_to_a_window_used_up_for_its_target():
    ledger = AnchorLedger(max_same_anchor_per_target=1)
    assert ledger.place_source("/elsewhere", [("/guide", [window("Archived posts")])]) == [
        window("Archived posts")
    ]
    best = [window("old posts"), window("Archived posts")]  # its alternative: used up
    only = [window("old posts", 1)]
    placed = ledger.place_source("/s", [("/guide", best), ("/archive", only)])
    assert placed == [window("old posts"), None]
    # a name of the target is not limited: the holder moves to it
    named = [window("old posts"), window("Archived posts", kind="title")]
    again = AnchorLedger(max_same_anchor_per_target=1)
    again.place_source("/elsewhere", [("/guide", [window("Archived posts", kind="title")])])
    assert again.place_source("/s", [("/guide", named), ("/archive", only)]) == [
        window("Archived posts", kind="title"),
        window("old posts", 1),
    ]


def test_a_page_is_forgotten_once_placed_but_a_targets_uses_are_kept():
    ledger = AnchorLedger(max_same_anchor_per_target=1)
    ledger.place_source("/s", [("/guide", [window("old posts")])])
    assert "/s" not in ledger.used_anchor and "/s" not in ledger.used_spans
    assert ledger.anchor_uses[("/guide", "old posts")] == 1
    assert ledger.place_source("/t", [("/guide", [window("old posts")])]) == [None]


def test_a_pair_placed_on_a_name_of_its_target_never_moves():
    ledger = AnchorLedger(max_same_anchor_per_target=2)
    best = [window("old posts", kind="title"), window("Archived posts")]
    only = [window("old posts", 1)]
    placed = ledger.place_source("/s", [("/old-posts", best), ("/archive", only)])
    assert placed == [window("old posts", kind="title"), None]


def test_a_prefix_looked_past_is_reported_and_the_batch_undone_then_full_lists_decide():
    """Lazy placements: a pair's first placements only (a Prefix). Where the ledger needs
    more (the pair's own pick, or an earlier pair asked to move) the pair is listed in
    ``short``; rollback undoes the batch's uses, and with full lists the ledger decides as it
    would have from the start."""
    full_guide = [window("old posts"), window("Archived posts")]
    full_archive = [window("old posts", 1), window("editing guide")]
    pairs_full = [("/guide", full_guide), ("/archive", full_archive)]
    eager = AnchorLedger(max_same_anchor_per_target=2).place_source("/s", pairs_full)

    ledger = AnchorLedger(max_same_anchor_per_target=2)
    lazy = [("/guide", Prefix(full_guide[:1])), ("/archive", Prefix(full_archive[:1]))]
    ledger.place_source("/s", lazy)  # /archive's "old posts" is taken: both lists too short
    assert set(ledger.short) == {("/s", "/archive"), ("/s", "/guide")}
    assert ledger.anchor_uses[("/guide", "old posts")] == 1
    ledger.rollback()
    assert ledger.short == [] and ledger.anchor_uses[("/guide", "old posts")] == 0
    assert eager == [full_guide[0], full_archive[1]]  # /archive's own second placement
    assert ledger.place_source("/s", pairs_full) == eager and ledger.short == []
    ledger.commit()
    assert ledger.anchor_uses[("/guide", "old posts")] == 1
    assert ledger.anchor_uses[("/archive", "editing guide")] == 1
    # a prefix whose first placement is free needs nothing more
    again = AnchorLedger(max_same_anchor_per_target=2)
    assert again.place_source("/t", [("/guide", Prefix(full_guide[:1]))]) == [full_guide[0]]
    assert again.short == [] and complete(full_guide) and not complete(Prefix(full_guide))
