"""The site context a candidate shard reads: pages, vectors, existing links and the stored site
models of the crawl (:class:`~linkpipe.lib.links.site_context.SiteContext`).

Its large arrays (each page's TF-IDF row, the lexical index's postings, the page vectors and
the navigation edges) are built once per crawl and shared by the machine's shard workers as
memory-mapped files (:mod:`linkpipe.lib.mapped`); the rest (names, content links, known
anchors, pages' titles) is read by each process."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import sparse

from linkpipe.lib.links.edge_set import EdgeSet
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.site_models import StoredRows
from linkpipe.lib.mapped import Arrays, decode_strings, drop_arrays, encode_strings, shared_arrays
from linkpipe.lib.stages.link_graph import load_content_links, load_other_links
from linkpipe.lib.stages.page_embeddings import load_crawl_vectors
from linkpipe.lib.stages.site_models import load_site_models, site_pages
from linkpipe.lib.storage import open_db
from linkpipe.lib.text.postings import Postings


def load_site_context(db_path: str | Path, crawl_id: str, inputs: str | None = None) -> SiteContext:
    """Pages, vectors and existing links of the crawl, aligned by URL, with the site models
    the ``site_models`` asset stored (never refitted here). With ``inputs`` (the digest of the
    context's inputs, see :func:`~linkpipe.lib.stages.candidate_pairs.shard_inputs`) the large
    arrays are memory-mapped from the files the machine's processes share, built by the first
    that asks; without, they are read into this process's memory."""
    if inputs is None:
        arrays = _site_arrays(db_path, crawl_id)
    else:
        key = ("site context", inputs)
        arrays = shared_arrays(db_path, crawl_id, key, lambda: _site_arrays(db_path, crawl_id))
    postings = Postings(_csr(arrays, "postings"), arrays["postings_rows"])
    rows = StoredRows(_strings(arrays, "tfidf_urls"), _csr(arrays, "tfidf"), postings)
    models = load_site_models(db_path, crawl_id, rows)
    by_url = {p.url: p for p in site_pages(db_path, crawl_id)}
    urls = _strings(arrays, "page_urls")
    missing = [u for u in urls if u not in by_url]
    if missing:  # the digest covers the pages: only a database changed under a run gets here
        raise RuntimeError(
            f"the site context of crawl {crawl_id!r} names unknown pages: {missing[:3]}"
        )
    with open_db(db_path) as con:
        content, known = load_content_links(con, crawl_id)
    nav_urls = _strings(arrays, "nav_urls")
    nav = EdgeSet(dict(zip(nav_urls, range(len(nav_urls)), strict=True)), arrays["nav_codes"])
    pages = [by_url[u] for u in urls]
    return SiteContext(pages, arrays["vectors"], content, nav, known, models)


def _site_arrays(db_path: str | Path, crawl_id: str) -> Arrays:
    """The arrays of the crawl's site context (numeric: they can be memory-mapped)."""
    models = load_site_models(db_path, crawl_id)
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    row_of = {u: i for i, u in enumerate(urls)}
    pages = [p.url for p in site_pages(db_path, crawl_id) if p.url in row_of]
    with open_db(db_path) as con:
        nav = load_other_links(con, crawl_id)
    vectors = matrix[[row_of[u] for u in pages]] if pages else np.zeros((0, 1), np.float32)
    arrays = {"vectors": vectors, "nav_codes": nav.codes}
    postings = models.index.postings
    arrays |= _csr_arrays("tfidf", models.tfidf.matrix) | _csr_arrays("postings", postings.blocks)
    arrays["postings_rows"] = postings.rows
    arrays |= _string_arrays("tfidf_urls", models.tfidf.urls) | _string_arrays("page_urls", pages)
    return arrays | _string_arrays("nav_urls", sorted(nav.number, key=nav.number.__getitem__))


def _csr_arrays(name: str, matrix: sparse.csr_matrix) -> Arrays:
    shape = np.array(matrix.shape, np.int64)
    parts = {"data": matrix.data, "indices": matrix.indices, "indptr": matrix.indptr}
    return {f"{name}_{k}": v for k, v in parts.items()} | {f"{name}_shape": shape}


def _csr(arrays: Arrays, name: str) -> sparse.csr_matrix:
    """The matrix of :func:`_csr_arrays`, on the given arrays (not copied; indices sorted)."""
    rows, cols = (int(n) for n in arrays[f"{name}_shape"])
    parts = (arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"])
    matrix = sparse.csr_matrix(parts, shape=(rows, cols), copy=False)
    matrix.has_sorted_indices = True  # as stored: nothing may sort a read-only mapping
    return matrix


def _string_arrays(name: str, values: list[str]) -> Arrays:
    return {f"{name}_{k}": v for k, v in encode_strings(values).items()}


def _strings(arrays: Arrays, name: str) -> list[str]:
    return decode_strings(arrays[f"{name}_bytes"], arrays[f"{name}_offsets"])


@dataclass
class _Held:
    """What a process keeps for the next shard of the same crawl: its site context and the
    page fact digests read for it (by crawl: this one's and its previous crawl's)."""

    key: str  # database, crawl and the digest of the context's inputs
    site: SiteContext
    digests: dict[str, Mapping[str, str]] = field(default_factory=dict)


_held: list[_Held] = []  # the last site context loaded, by its inputs' digest


def _held_context(db_path: str | Path, crawl_id: str, inputs: str) -> _Held:
    key = f"{Path(db_path).resolve()}|{crawl_id}|{inputs}"
    if not _held or _held[0].key != key:
        _held.clear()  # the old one goes before the new one is loaded
        _held.append(_Held(key, load_site_context(db_path, crawl_id, inputs)))
    return _held[0]


def site_context(db_path: str | Path, crawl_id: str, inputs: str) -> SiteContext:
    """The crawl's site context (:func:`load_site_context`, its arrays shared), kept in memory
    for the next shard of the same process while its inputs' digest (``inputs``) is the same:
    a worker placing several shards of a crawl loads it, and computes each target's profile
    and key, once. One context is held at a time."""
    return _held_context(db_path, crawl_id, inputs).site


def held_page_digests(
    db_path: str | Path,
    crawl_id: str,
    inputs: str,
    of_crawl: str,
    read: Callable[[], Mapping[str, str]],
) -> Mapping[str, str]:
    """The page fact digests of ``of_crawl`` (the crawl or its previous one) as ``read``
    gives them, read once for every shard this process computes of the crawl (held with
    its site context, :func:`site_context`: the same inputs' digest). At 100k pages a read
    costs ~1.7 CPU-s and a ~500 MB transient of DuckDB's, twice a shard before."""
    held = _held_context(db_path, crawl_id, inputs)
    if of_crawl not in held.digests:
        held.digests[of_crawl] = read()
    return held.digests[of_crawl]


def release_site_context(db_path: str | Path, crawl_id: str) -> None:
    """Drop the site context :func:`site_context` keeps (with its page fact digests) and the
    crawl's shared arrays (the candidate step is over: at 100k pages they hold gigabytes that
    scoring does not need)."""
    _held.clear()
    drop_arrays(db_path, {crawl_id})
