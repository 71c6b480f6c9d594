"""The lexical index's postings, laid out so that a query's partial sums stay in the CPU's cache.

A sparse product accumulates a query's partial dot products in arrays the size of its columns,
written at the places of the pages its terms' postings hold. Over a whole large site those
arrays (16 bytes a page) outgrow the cache and nearly every write misses it: at 1M generated
pages the product cost 3.5 times what the same postings cost at 100k. So the pages are given
positions of the index's own, grouped by their heaviest term (the pages one term weighs most in
lie close together), and the positions are cut into blocks of :data:`BLOCK_PAGES`, each
multiplied on its own with arrays that fit the cache. The stored layout is one CSR matrix whose
row ``block * terms + term`` holds the term's pages of that block (their positions within it),
so that every block is a view of it (a memory-mapped file is never copied). The sums of every
page are the same as over a plain terms x pages matrix: each is added up over the query's terms
in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

BLOCK_PAGES = 131_072  # positions a block: its sums (16 bytes each) stay in the cache


@dataclass(frozen=True)
class Postings:
    """Each term's champion pages, by block of positions (see the module's docstring)."""

    blocks: sparse.csr_matrix  # (n_blocks * n_terms) x width: positions within a block
    rows: NDArray[np.int32]  # the page row at each position

    @property
    def width(self) -> int:
        """Positions a block: :data:`BLOCK_PAGES`, or the pages of a smaller site."""
        return int(self.blocks.shape[1])

    @property
    def n_blocks(self) -> int:
        """Blocks of positions (one for a site of at most :data:`BLOCK_PAGES` pages)."""
        return max(1, -(-len(self.rows) // self.width))

    @property
    def n_terms(self) -> int:
        """Terms of the matrix the postings were built from."""
        return int(self.blocks.shape[0] // self.n_blocks)

    def _block(self, number: int) -> sparse.csr_matrix:
        """Terms x positions of block ``number``: a view of the stored arrays, not a copy."""
        terms, width = self.n_terms, self.width
        start = number * terms
        indptr = self.blocks.indptr[start : start + terms + 1]
        lo, hi = int(indptr[0]), int(indptr[-1])
        parts = (self.blocks.data[lo:hi], self.blocks.indices[lo:hi], indptr - lo)
        view = sparse.csr_matrix(parts, shape=(terms, width), copy=False)
        view.has_sorted_indices = True
        return view

    def partial_sums(self, lookups: sparse.csr_matrix) -> sparse.csr_matrix:
        """Queries x positions: each query's partial dot product with every page its terms'
        postings hold (``lookups``: queries x terms); a row's positions are not in order
        (:attr:`rows` gives each position's page)."""
        parts = [(lookups @ block).tocsr() for block in self.views]
        return parts[0] if len(parts) == 1 else _joined(parts, self.width)

    @cached_property
    def views(self) -> list[sparse.csr_matrix]:
        """Every block (terms x positions), made once: views of the stored arrays."""
        return [self._block(b) for b in range(self.n_blocks)]

    def term_rows(self, term: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """(page rows, weights) of one term's postings, by row (for checks and tests)."""
        rows, weights = [], []
        for b, view in enumerate(self.views):
            lo, hi = view.indptr[term], view.indptr[term + 1]
            rows.append(self.rows[b * self.width + view.indices[lo:hi]])
            weights.append(view.data[lo:hi])
        found, data = np.concatenate(rows).astype(np.int64), np.concatenate(weights)
        order = np.argsort(found)
        return found[order], data[order]


def _joined(parts: list[sparse.csr_matrix], width: int) -> sparse.csr_matrix:
    """The blocks' products side by side (what ``sparse.hstack`` does, at a fraction of its
    cost: one scatter of each block's entries)."""
    lengths = np.array([np.diff(p.indptr) for p in parts])  # blocks x queries
    indptr = np.zeros(lengths.shape[1] + 1, np.int64)
    np.cumsum(lengths.sum(axis=0), out=indptr[1:])
    starts = indptr[:-1] + np.cumsum(lengths, axis=0) - lengths  # each block's place in a row
    indices = np.empty(int(indptr[-1]), np.int32)
    data = np.empty(int(indptr[-1]))
    for number, part in enumerate(parts):
        at = np.repeat(starts[number] - part.indptr[:-1], lengths[number])
        at += np.arange(part.nnz)
        indices[at] = part.indices + number * width
        data[at] = part.data
    shape = (lengths.shape[1], len(parts) * width)
    return sparse.csr_matrix((data, indices, indptr), shape=shape)


def build_postings(
    champions: sparse.csr_matrix, matrix: sparse.csr_matrix, block_pages: int = BLOCK_PAGES
) -> Postings:
    """The postings of ``champions`` (terms x pages: each term's kept pages) with the pages
    positioned by their heaviest term in ``matrix`` (pages x terms), ``block_pages`` positions
    a block."""
    rows = np.argsort(heaviest_term(matrix), kind="stable").astype(np.int32)
    position = np.empty(len(rows), np.int64)
    position[rows] = np.arange(len(rows))
    n_terms, width = champions.shape[0], max(1, min(block_pages, len(rows)))
    n_blocks = max(1, -(-len(rows) // width))
    coo = champions.tocoo()
    at = position[coo.col]
    blocks = sparse.csr_matrix(
        (coo.data, ((at // width) * n_terms + coo.row, at % width)),
        shape=(n_blocks * n_terms, width),
    )
    blocks.sort_indices()
    return Postings(blocks, rows)


def heaviest_term(matrix: sparse.csr_matrix) -> NDArray[np.int64]:
    """Each row's column of highest weight (the first of equals; the column count for an
    empty row)."""
    counts = np.diff(matrix.indptr)
    top = np.full(matrix.shape[0], matrix.shape[1], np.int64)
    filled = np.flatnonzero(counts > 0)
    if not len(filled):
        return top
    row_max = np.zeros(matrix.shape[0])
    row_max[filled] = np.maximum.reduceat(matrix.data, matrix.indptr[filled])
    at = np.flatnonzero(matrix.data == np.repeat(row_max, counts))
    row = np.repeat(np.arange(matrix.shape[0]), counts)[at]
    first = np.r_[True, row[1:] != row[:-1]]
    top[row[first]] = matrix.indices[at[first]]
    return top
