"""Readable cluster labels: class-based TF-IDF over titles, H1s and headings."""

import random
from pathlib import Path

import numpy as np

from linkpipe.lib.stages.topic_clusters import materialize_topic_clusters
from linkpipe.lib.storage import open_db
from linkpipe.lib.vectors.cluster_labels import PageHeadings, cluster_labels, phrases

MASKS = [
    PageHeadings(
        "Layer Masks Explained | PixelDocs",
        "Layer Masks Explained",
        ("What a layer mask does", "Quick mask mode"),
    ),
    PageHeadings(
        "Adding a Layer Mask | PixelDocs",
        "Adding a Layer Mask",
        ("Painting on the mask", "Gradient masks"),
    ),
    PageHeadings(
        "Quick Mask Mode | PixelDocs",
        "Quick Mask Mode",
        ("From quick mask to selection", "Gradient masks"),
    ),
]
BRUSHES = [
    PageHeadings(
        "Brush Presets | PixelDocs", "Brush Presets", ("Saving a brush preset", "Brush dynamics")
    ),
    PageHeadings(
        "Custom Brushes from Images | PixelDocs",
        "Custom Brushes",
        ("Brush spacing", "Painting with a custom brush"),
    ),
    PageHeadings(
        "Brush Dynamics and Pressure | PixelDocs",
        "Brush Dynamics",
        ("Tablet pressure", "Brush presets for tablets"),
    ),
]


def test_labels_are_the_distinctive_phrases_of_each_cluster():
    labels = cluster_labels({0: MASKS, 1: BRUSHES})
    # "mask" grows into the phrase most pages share; the site name, in every cluster, is left
    # out; "brushes"/"brush" and "presets"/"preset" count as one; "custom brushes" (one page)
    # is not needed once two shared phrases are found
    assert labels == {
        0: "layer mask / quick mask mode / gradient masks",
        1: "brush dynamics / brush presets",
    }


def test_labels_do_not_depend_on_input_order():
    expected = cluster_labels({0: MASKS, 1: BRUSHES})
    rng = random.Random(7)
    for _ in range(5):
        masks, brushes = MASKS[:], BRUSHES[:]
        rng.shuffle(masks)
        rng.shuffle(brushes)
        assert cluster_labels({1: brushes, 0: masks}) == expected


def test_ties_are_broken_by_the_phrase_text():
    # every phrase has one page and the same weight: alphabetical order decides
    clusters = {0: [PageHeadings("Pears"), PageHeadings("Apples")], 1: [PageHeadings("Plums")]}
    assert cluster_labels(clusters) == {0: "apples / pears", 1: "plums"}
    clusters = {0: [PageHeadings("Apples"), PageHeadings("Pears")], 1: [PageHeadings("Plums")]}
    assert cluster_labels(clusters) == {0: "apples / pears", 1: "plums"}


def test_generic_words_numbers_and_shared_words_never_label():
    clusters = {
        0: [PageHeadings("The Ultimate Guide: 10 Tips | Site"), PageHeadings("Tips | Site")],
        1: [PageHeadings("Canonical tags | Site"), PageHeadings("Canonical tag checks | Site")],
    }
    assert cluster_labels(clusters) == {0: "misc", 1: "canonical tag / checks"}


def test_phrases_stop_at_punctuation_stopwords_and_generic_words():
    keys = [key for key, _ in phrases("Adding Layer Masks | PixelDocs")]
    assert keys == ["layer", "mask", "layer mask", "pixeldoc"]
    surfaces = [surface for _, surface in phrases("Step 3: brush presets, explained")]
    assert surfaces == ["brush", "presets", "brush presets"]


def test_topic_clusters_stage_labels_from_titles_and_headings(tmp_path: Path):
    db = tmp_path / "clusters.duckdb"
    pages = {"/m1": MASKS[0], "/m2": MASKS[1], "/m3": MASKS[2]}
    pages |= {"/b1": BRUSHES[0], "/b2": BRUSHES[1], "/b3": BRUSHES[2]}
    with open_db(db) as con:
        for i, (url, page) in enumerate(pages.items()):
            vector = [1.0, 0.01 * i] if url.startswith("/m") else [0.01 * i, 1.0]
            con.execute(
                "INSERT INTO indexable_pages (crawl_id, url, shard, indexable, title) "
                "VALUES ('c1', ?, 0, true, ?)",
                [url, page.title],
            )
            con.execute(
                "INSERT INTO page_summaries (crawl_id, shard, url, title, h1, text_key) "
                "VALUES ('c1', 0, ?, ?, ?, ?)",
                [url, page.title, page.h1, f"key {url}"],
            )
            for n, heading in enumerate(page.headings):
                con.execute(
                    "INSERT INTO text_sentences (text_key, paragraph_idx, sentence_idx, "
                    "block_kind, sentence) VALUES (?, ?, 0, 'heading', ?)",
                    [f"key {url}", n, heading],
                )
            con.execute(
                "INSERT INTO page_embeddings (crawl_id, shard, url, text_hash, model_id, "
                "embedding) VALUES ('c1', 0, ?, 'h', 'm', ?)",
                [url, list(np.array(vector) / np.linalg.norm(vector))],
            )
    materialize_topic_clusters(db, "c1")
    with open_db(db, read_only=True) as con:
        rows = con.execute(
            "SELECT cluster_label, size FROM cluster_summary WHERE crawl_id = 'c1' "
            "ORDER BY cluster_label"
        ).fetchall()
    assert rows == [
        ("brush dynamics / brush presets", 3),
        ("layer mask / quick mask mode / gradient masks", 3),
    ]  # "gradient masks" and "quick mask mode" come from the pages' headings
