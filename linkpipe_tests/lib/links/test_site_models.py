"""Site models: one pass over the pages gives the TF-IDF and name counts, and the stored
tables give candidate shards exactly what a fresh build would."""

import numpy as np
import pytest

from linkpipe.lib.links import site_models
from linkpipe.lib.links.anchors import STOP_STEMS, SourceText
from linkpipe.lib.links.candidates import build_candidates
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.site_models import (
    MAX_TEXT_CHARS,
    SitePage,
    build_site_models,
    model_tables,
    models_from_tables,
    page_names,
)
from linkpipe.lib.text import page_pass
from linkpipe.lib.text.lexical import phrase_key
from linkpipe.lib.text.mentions import MentionIndex
from linkpipe.lib.text.tfidf import analyse, fit_model
from linkpipe.lib.vectors.ann import build_index
from linkpipe_tests.lib.text.corpus import zipf_corpus

PAGES = [
    SitePage(
        "/a", "Raster tools", "", "", "Install GDAL before the raster tools. Then colour balance."
    ),
    SitePage("/b", "Builds", "Builds of GDAL", "", "Raster tools need GDAL; see the GDAL page."),
    SitePage("/c", "Vector layers", "", "", "Vector layers are read with GDAL as well."),
    SitePage("/gdal", "GDAL", "", "gdal", "GDAL is a translator library for raster formats."),
    SitePage("/d", "Tips", "", "", "Colour balance tips for photographs of raster tools."),
]
LINKS = {"/b": {"/gdal"}, "/c": {"/gdal"}}
ANCHORS = {"/gdal": ["GDAL", "the GDAL library"]}


def test_one_pass_gives_the_tfidf_of_page_texts_and_the_name_counts() -> None:
    models = build_site_models(PAGES, iter(PAGES), LINKS, ANCHORS)
    reference = fit_model((p.url, analyse(p.text)) for p in PAGES)
    assert list(models.tfidf.terms) == list(reference.terms)
    assert abs(models.tfidf.matrix - reference.matrix).max() < 1e-12
    counted = MentionIndex(
        {p.url: page_names(p, ANCHORS) for p in PAGES},
        ((p.url, phrase_key(p.main_text)) for p in PAGES),
        LINKS,
        STOP_STEMS,
    )
    assert dict(models.mentions.mentioned_by) == dict(counted.mentioned_by) != {}
    assert dict(models.mentions.linked_by) == {(("gdal",), "/gdal"): 2}
    # "GDAL" in a, b, c and gdal itself; b and c link it: (2 + 0.2) / (3 + 2)
    assert models.mentions.probability(("gdal",), "/gdal") == (pytest.approx(0.44), 3, 2)
    assert models.mentions.targets[phrase_key("Builds of GDAL")] == {"/b": ("Builds of GDAL", "h1")}


def test_main_text_counts_up_to_its_cap() -> None:
    long_page = SitePage("/long", "Long", "", "", "word " * (MAX_TEXT_CHARS // 5) + "GDAL")
    models = build_site_models([*PAGES, long_page], [*PAGES, long_page], LINKS, ANCHORS)
    assert models.mentions.mentioned_by[("gdal",)] == 4  # /long mentions it past the cap


def test_stored_tables_rebuild_the_same_models() -> None:
    texts = zipf_corpus(300, seed=7)
    pages = [SitePage(f"/p{i:03}", f"Page {i}", "", "", t) for i, t in enumerate(texts)]
    models = build_site_models(pages, pages, {}, {})
    tables = model_tables(models)
    assert set(tables) == {"site_terms", "site_page_terms", "site_names"}
    assert tables["site_page_terms"].height == 300
    stored = models_from_tables(
        tables["site_terms"], tables["site_page_terms"], tables["site_names"]
    )
    assert (stored.tfidf.matrix != models.tfidf.matrix).nnz == 0
    rows = [0, 42, 299]
    for a, b in zip(stored.index.neighbours(rows, 11), models.index.neighbours(rows, 11),
                    strict=True):  # fmt: skip
        assert list(a) == list(b)
    assert stored.tfidf.top_terms(42, 40) == models.tfidf.top_terms(42, 40)


def test_candidates_from_stored_models_equal_a_fresh_build() -> None:
    vectors = np.eye(5, dtype=np.float32)[[0, 1, 1, 2, 0]] + 0.1
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    fresh = SiteContext(PAGES, vectors, LINKS, {}, ANCHORS)
    tables = model_tables(fresh.models)
    names = [SitePage(p.url, p.title, p.h1, p.slug) for p in PAGES]  # no main text needed
    stored = SiteContext(
        names, vectors, LINKS, {}, ANCHORS,
        models_from_tables(tables["site_terms"], tables["site_page_terms"], tables["site_names"]),
    )  # fmt: skip
    ann = build_index(vectors, [p.url for p in PAGES])
    text = PAGES[0].main_text
    texts = {"/a": SourceText(text, [(0, 0, len(text), "paragraph")])}
    rows = build_candidates(stored, ["/a"], texts, ann, k=2)
    assert rows == build_candidates(fresh, ["/a"], texts, ann, k=2)
    gdal = {r.target_url: r for r in rows}["/gdal"]
    assert (gdal.mention_phrase, gdal.mention_score) == ("GDAL", 0.44)
    # /a shares "colour balance" with /d only (its other words are in most pages or its own)
    assert {r.target_url: r.lexical_sim > 0 for r in rows} == {
        "/c": False, "/d": True, "/gdal": False
    }  # fmt: skip


def test_models_built_in_worker_processes_equal_those_of_one_process(monkeypatch) -> None:
    texts = zipf_corpus(600, seed=3)
    pages = [
        SitePage(f"/p{i:03}", f"W{i % 50}x w{i % 7}x", "", "", t) for i, t in enumerate(texts)
    ]
    links = {p.url: {f"/p{(i * 11) % 600:03}"} for i, p in enumerate(pages)}
    anchors = {"/p001": ["w0x w1x guide", "w3x"]}
    serial = build_site_models(pages, pages, links, anchors)
    monkeypatch.setattr(page_pass, "MIN_PARALLEL_PAGES", 0)  # workers for 600 pages
    monkeypatch.setattr(page_pass, "BATCH_PAGES", 70)
    monkeypatch.setattr(site_models, "BATCH_PAGES", 90)
    monkeypatch.setenv("LINKPIPE_WORKERS", "2")
    parallel = build_site_models(pages, iter(pages), links, anchors)
    assert parallel.mentions.frame().equals(serial.mentions.frame())
    assert parallel.mentions.targets == serial.mentions.targets
    assert parallel.mentions.targets[phrase_key("w0x w1x guide")] == {
        "/p001": ("w0x w1x guide", "known_anchor")
    }
    assert sum(parallel.mentions.linked_by.values()) > 0
    assert parallel.tfidf.urls == serial.tfidf.urls
    assert (parallel.tfidf.matrix != serial.tfidf.matrix).nnz == 0


def _site(texts: list[str]) -> list[SitePage]:
    """Pages named by words of their own text (so that other pages mention the names)."""
    return [
        SitePage(f"/p{i:03}", " ".join(t.split()[:2]), "", "", t) for i, t in enumerate(texts)
    ]


def _update(
    previous: list[SitePage], now: list[SitePage], links: dict, anchors: dict, changed: set[str]
) -> tuple[site_models.ModelUpdate | None, list[str]]:
    """The models of ``previous`` brought to ``now`` (``changed``: the URLs whose text, name
    or links differ), and the unchanged pages it read."""
    built = build_site_models(previous, previous, links, anchors)
    old = {p.url: p for p in previous}
    new = {p.url: p for p in now}
    read: list[str] = []

    def texts_of(urls: list[str]) -> list[tuple[SitePage, set[str]]]:
        read.extend(urls)
        return [(new[u], links.get(u, set())) for u in urls]

    update = site_models.update_site_models(
        built,
        now,
        [(old[u], links.get(u, set())) for u in sorted(changed) if u in old],
        [(new[u], links.get(u, set())) for u in sorted(changed) if u in new],
        anchors,
        texts_of=texts_of,
    )
    return update, read


def test_an_update_whose_names_changed_equals_a_build_with_the_kept_statistics() -> None:
    texts = zipf_corpus(300, seed=9)
    before = _site(texts)
    links = {p.url: {f"/p{(i * 7) % 300:03}"} for i, p in enumerate(before)}
    anchors = {"/p001": ["w0x w1x guide"]}
    now = [p for p in before if p.url != "/p010"]  # a page went
    words = texts[40].split()  # a page came, named by words other pages hold
    now.append(SitePage("/new", " ".join(words[5:7]), "", "", texts[40][::-1]))
    now[3] = SitePage(now[3].url, "Renamed " + " ".join(words[9:11]), "", "", now[3].main_text)
    now[4] = SitePage(now[4].url, now[4].title, "", "", now[4].main_text + " " + words[5])
    changed = {"/p010", "/new", now[3].url, now[4].url}
    now.sort(key=lambda p: p.url)
    update, read = _update(before, now, links, anchors, changed)
    fitted = build_site_models(before, before, links, anchors).tfidf
    rebuilt = build_site_models(now, now, links, anchors, fitted=fitted)
    assert update is not None and update.names_recounted > 0
    assert 0 < update.pages_reread == len(read) < len(now) // 2
    assert not set(read) & changed  # the changed pages are counted as they are, once
    got = update.models
    assert got.mentions.frame().sort(["name_key", "target_url"]).equals(
        rebuilt.mentions.frame().sort(["name_key", "target_url"])
    )
    assert got.mentions.mentioned_by[phrase_key(" ".join(words[5:7]))] > 1
    assert got.tfidf.urls == rebuilt.tfidf.urls
    assert (got.tfidf.matrix != rebuilt.tfidf.matrix).nnz == 0


def test_a_new_name_any_page_may_hold_counts_every_page_again() -> None:
    texts = zipf_corpus(200, seed=4)
    before = _site(texts)
    now = [*before[:-1], SitePage(before[-1].url, "w0x", "", "", before[-1].main_text)]
    # "w0x" is in most pages: not weighed, so any page may hold it
    update, read = _update(before, now, {}, {}, {before[-1].url})
    assert update is None and read == []
