"""A source's best name of each target picked on the name index's arrays: the mentions of
``MentionIndex.mentions_of``, in the targets' order."""

import itertools
import random
from collections import Counter

from linkpipe.lib.links.anchors import STOP_STEMS
from linkpipe.lib.text.lexical import phrase_key
from linkpipe.lib.text.mentions import MentionCounts, MentionIndex
from linkpipe.lib.text.name_arrays import NameArrays

NAMES = {
    "/gdal": [("GDAL", "title"), ("GDAL library", "known_anchor"), ("raster reader", "h1")],
    "/urls": [("URL dispatcher", "title"), ("reverse", "known_anchor")],
    "/raster": [("raster", "title"), ("raster reader", "known_anchor")],
    "/about": [("About", "title")],
}
TEXTS = {
    "/r1": "Upgrade GDAL before you call reverse on the URL dispatcher.",
    "/r2": "This release needs GDAL 3. The GDAL library is optional.",
    "/r3": "GDAL support is experimental; reverse the raster reader.",
    "/r4": "Sort in reverse and read the raster notes.",
}
LINKS = {"/r1": {"/gdal", "/urls"}, "/r2": {"/gdal"}, "/r3": {"/raster"}}


def _index() -> MentionIndex:
    stems = ((url, phrase_key(text)) for url, text in TEXTS.items())
    return MentionIndex(NAMES, stems, LINKS, STOP_STEMS)


def _keys(index: MentionIndex) -> list[str]:
    return sorted(" ".join(k) for k, named in index.targets.items() if named)


def test_the_pairs_picked_are_the_mentions_of_every_set_of_names() -> None:
    index = _index()
    names = NameArrays.of(index)
    keys = _keys(index)
    # "About" is a stop word: no name; "raster reader" names two pages
    assert len(names.mentions) == 7 and names.urls == ["/gdal", "/raster", "/urls"]
    for n in range(len(keys) + 1):
        for chosen in itertools.combinations(keys, n):
            for exclude in ("", "/gdal", "/raster"):
                named = index.mentions_of((tuple(k.split(" ")) for k in chosen), {exclude})
                picked = [names.mentions[p] for p in names.best(chosen, exclude)]
                assert picked == [named[t] for t in sorted(named)], (chosen, exclude)
    # a key the index does not hold names nothing; a key given twice, the same
    assert names.best(["no such name"]).tolist() == []
    twice = names.best(["gdal", "gdal", "revers"])
    assert [names.mentions[p].target for p in twice] == ["/gdal", "/urls"]


def test_between_names_of_equal_probability_the_longest_then_the_first_wins() -> None:
    # "raster reader" names /gdal and /raster; nobody links it: both pairs have its prior,
    # and "raster" (one word) names /raster with the same probability when counted so
    names = {"/gdal": [("raster reader", "h1")], "/raster": [("raster", "title")]}
    index = MentionIndex(names, [], {}, STOP_STEMS)
    index.add(MentionCounts(Counter({("raster",): 0})))
    arrays = NameArrays.of(index)
    picked = [arrays.mentions[p] for p in arrays.best(["raster", "raster reader"])]
    assert [(m.target, m.key) for m in picked] == [
        ("/gdal", "raster reader"),
        ("/raster", "raster"),
    ]
    equal = {("a", "b"): {"/t": ("A B", "title")}, ("a", "c"): {"/t": ("A C", "h1")}}
    tied = MentionIndex.of_targets(equal, index.config)
    best = NameArrays.of(tied).best(["a c", "a b"])
    assert [NameArrays.of(tied).mentions[p].phrase for p in best] == ["A B"]  # first in order
    assert tied.mentions_of([("a", "c"), ("a", "b")])["/t"].phrase == "A B"


def test_the_arrays_follow_the_counts() -> None:
    index = _index()
    before = NameArrays.of(index)
    assert before.version == index.version
    rng = random.Random(3)
    keys = _keys(index)
    # two more pages link /urls where they say "reverse": its probability rises
    reverse = tuple(phrase_key("reverse"))
    index.add(MentionCounts(Counter({reverse: 2}), Counter({(reverse, "/urls"): 2})))
    after = NameArrays.of(index)
    assert after.version > before.version
    pair = after.best(["revers"])[0]
    assert (
        after.mentions[pair].probability > before.mentions[before.best(["revers"])[0]].probability
    )
    for _ in range(20):
        chosen = rng.sample(keys, rng.randint(1, len(keys)))
        named = index.mentions_of(tuple(k.split(" ")) for k in chosen)
        assert [after.mentions[p] for p in after.best(chosen)] == [named[t] for t in sorted(named)]
