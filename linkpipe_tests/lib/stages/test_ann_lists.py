"""ann_index keeps the previous crawl's trained IVF lists while few vectors changed."""

import shutil

import numpy as np
import pytest

from linkpipe.lib.stages import ann_index
from linkpipe.lib.stages.ann_index import kept_lists, load_ann_index, materialize_ann_index
from linkpipe.lib.storage import open_db
from linkpipe.lib.vectors import ann
from linkpipe.lib.vectors.ann import list_centroids
from linkpipe_tests.graph import crawl_and_run


@pytest.fixture(scope="module")
def indexed_db(tmp_path_factory, demo_site, fake_model):
    """The demo site up to ann_index (crawl c1), its index forced to IVF."""
    db = tmp_path_factory.mktemp("ann-lists") / "linkpipe.duckdb"
    mp = pytest.MonkeyPatch()
    mp.setattr(ann, "EXACT_THRESHOLD", 10)
    try:
        crawl_and_run(db, "c1", demo_site.base_url + "/", fake_model, 300, until="ann_index")
    finally:
        mp.undo()
    return db


def _next_crawl(db, previous: str, crawl_id: str, changed: int) -> list[str]:
    """A crawl of the same pages an hour later whose first ``changed`` pages embed another
    text (their vectors reversed); their URLs."""
    with open_db(db) as con:
        con.execute(
            "INSERT INTO crawls SELECT * REPLACE (?::VARCHAR AS crawl_id, "
            "created_at + INTERVAL 1 HOUR AS created_at) FROM crawls WHERE crawl_id = ?",
            [crawl_id, previous],
        )
        con.execute(
            "INSERT INTO page_embeddings SELECT * REPLACE (?::VARCHAR AS crawl_id) "
            "FROM page_embeddings WHERE crawl_id = ?",
            [crawl_id, previous],
        )
        urls = [
            r[0]
            for r in con.execute(
                "SELECT url FROM page_embeddings WHERE crawl_id = ? ORDER BY url LIMIT ?",
                [crawl_id, changed],
            ).fetchall()
        ]
        con.execute(
            "UPDATE page_embeddings SET text_hash = text_hash || '-edited', "
            "embedding = list_reverse(embedding) "
            "WHERE crawl_id = ? AND url IN (SELECT unnest(?::VARCHAR[]))",
            [crawl_id, urls],
        )
    return urls


def _centroids(db, crawl_id: str) -> np.ndarray:
    found = list_centroids(load_ann_index(db, crawl_id))
    assert found is not None
    return found


def test_a_refresh_keeps_the_lists_while_few_vectors_changed(indexed_db, tmp_path, monkeypatch):
    monkeypatch.setattr(ann, "EXACT_THRESHOLD", 10)
    db = shutil.copy(indexed_db, tmp_path / "a.duckdb")
    before = _centroids(db, "c1")
    n = len(load_ann_index(db, "c1").urls)
    edited = _next_crawl(db, "c1", "c2", 1)
    model = _model(db)
    result = materialize_ann_index(db, "c2", model)
    assert result.meta["lists_from"] == "c1" and result.meta["index_kind"].startswith("ivf")
    assert np.array_equal(_centroids(db, "c2"), before)  # the lists as trained on c1
    # every vector is in the index, the edited one where its new vector belongs
    c2 = load_ann_index(db, "c2")
    assert len(c2.urls) == n and result.meta["recall_at_k"] >= 0.9
    with open_db(db) as con:
        vector = con.execute(
            "SELECT embedding FROM page_embeddings WHERE crawl_id = 'c2' AND url = ?", edited
        ).fetchone()[0]
    sims, ids = c2.search(np.array([vector], np.float32), 1)
    assert c2.urls[int(ids[0][0])] == edited[0] and sims[0][0] == pytest.approx(1.0, abs=1e-5)
    # too many changed (more than a tenth): the lists are trained again
    _next_crawl(db, "c2", "c3", int(n * ann_index.KEEP_LISTS_SHARE) + 1)
    assert kept_lists(db, "c3", model, before.shape[1]) is None
    assert materialize_ann_index(db, "c3", model).meta["lists_from"] == ""
    # another model's index is never the start of this one's
    assert kept_lists(db, "c2", "another/model", before.shape[1]) is None


def _model(db) -> str:
    with open_db(db) as con:
        found = con.execute("SELECT model_id FROM ann_indexes WHERE crawl_id = 'c1'").fetchone()
    return str(found[0])
