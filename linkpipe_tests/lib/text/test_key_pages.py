"""The pages that may hold a name key, read off their TF-IDF rows: never one too few."""

import numpy as np

from linkpipe.lib.text.key_pages import (
    has_unseen_stem,
    pages_holding,
    rows_with_keys,
    stopword_stems,
    sure_columns,
)
from linkpipe.lib.text.lexical import phrase_key
from linkpipe.lib.text.mentions import MentionIndex
from linkpipe.lib.text.tfidf import analyse, fit_model
from linkpipe_tests.lib.text.corpus import zipf_corpus

TEXTS = [
    "Getting started with the raster tools takes a minute.",
    "The raster tools read every band; doing so is quick.",
    "Vector layers and raster tools, started in one window.",
    "Colour balance is done after the vector layers are read.",
    "Nothing here is about any of those things.",
    "Printing needs paper, ink and patience.",
    "Scanning photographs gives large files.",
]  # fewer than half of the pages use each word of the names below (more would not be weighed)


def _holding(texts: list[str], key: tuple[str, ...]) -> set[int]:
    """The texts whose stems hold ``key`` (as the name counts find it)."""
    index = MentionIndex({"/t": [(" ".join(key), "title")]}, (), {}, keys={"/t": [key]})
    return {i for i, t in enumerate(texts) if key in index.keys_in(phrase_key(t))}


def test_the_rows_found_hold_every_page_with_the_key_and_few_others() -> None:
    model = fit_model((str(i), analyse(t)) for i, t in enumerate(TEXTS))
    key = phrase_key("raster tools")
    found = rows_with_keys(model.matrix, model.column_of, [key])
    assert found is not None and set(found.tolist()) == {0, 1, 2} == _holding(TEXTS, key)
    # "vector layers" and "started with": the pages of either; "with" is a stopword (never
    # weighed), so any page weighing "start" may hold the second
    keys = [phrase_key("vector layers"), phrase_key("started with")]
    found = rows_with_keys(model.matrix, model.column_of, keys)
    assert found is not None and found.tolist() == [0, 2, 3]
    assert _holding(TEXTS, keys[0]) | _holding(TEXTS, keys[1]) == {0, 2, 3}
    assert sure_columns(phrase_key("started with"), model.column_of) == [model.column_of["start"]]


def test_a_key_without_a_sure_stem_may_be_anywhere() -> None:
    model = fit_model((str(i), analyse(t)) for i, t in enumerate(TEXTS))
    assert "do" in stopword_stems()  # "doing" gives the stem of the stopword "do"
    assert rows_with_keys(model.matrix, model.column_of, [phrase_key("doing")]) is None
    assert rows_with_keys(model.matrix, model.column_of, [("quokka",)]) is None  # unknown
    assert rows_with_keys(model.matrix, model.column_of, []) is not None


def test_on_a_zipf_site_no_page_holding_a_key_is_missed() -> None:
    texts = zipf_corpus(400, seed=11)
    model = fit_model((str(i), analyse(t)) for i, t in enumerate(texts))
    rng = np.random.default_rng(5)
    keys = []
    for page in rng.choice(len(texts), 30, replace=False).tolist():
        words = texts[page].split()
        at = int(rng.integers(len(words) - 2))
        keys.append(tuple(words[at : at + 1 + at % 3]))
    found = rows_with_keys(model.matrix, model.column_of, keys)
    if found is None:  # a key of words in more than half of the pages only
        keys = [k for k in keys if sure_columns(k, model.column_of)]
        found = rows_with_keys(model.matrix, model.column_of, keys)
    assert found is not None and len(keys) >= 20
    holding = set().union(*(_holding(texts, k) for k in keys))
    assert holding <= set(found.tolist())
    assert len(found) < len(texts)  # a lookup, not every page


def test_a_stem_the_statistics_never_saw_is_told_from_a_common_one() -> None:
    model = fit_model((str(i), analyse(t)) for i, t in enumerate(TEXTS))
    model.common["brightleaf"] = 5  # as if it were on more than half of the pages
    assert has_unseen_stem(("quokka", "raster"), model.column_of, model.common)
    assert not has_unseen_stem(("brightleaf",), model.column_of, model.common)  # common: seen
    assert not has_unseen_stem(("raster",), model.column_of, model.common)  # weighed
    assert not has_unseen_stem(("do",), model.column_of, model.common)  # a stopword's


def test_the_pages_holding_a_name_of_unseen_words_are_those_changed_since_the_fit() -> None:
    urls = [f"/p{i}" for i in range(len(TEXTS))]
    model = fit_model(zip(urls, (analyse(t) for t in TEXTS), strict=True))

    def since_fit() -> set[str]:
        return {"/p4", "/new"}  # an edited page and one new since the fit (no row here)

    keys = [phrase_key("raster tools"), phrase_key("quokka")]
    assert pages_holding(model, keys, since_fit) == {"/p0", "/p1", "/p2", "/p4"}
    assert pages_holding(model, keys, None) is None  # the changed pages are not known
    assert pages_holding(model, [phrase_key("raster tools")], None) == {"/p0", "/p1", "/p2"}
    model.common["brightleaf"] = 5  # a name of words on most pages alone: any page may hold it
    assert pages_holding(model, [("brightleaf",)], since_fit) is None
