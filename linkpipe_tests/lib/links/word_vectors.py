"""Deterministic word vectors for anchor tests: a fixed random unit vector per word."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np


def seeded_unit_vectors(words: Sequence[str], dim: int = 16) -> np.ndarray:
    """A fixed random unit vector per word (seeded by the word's CRC-32)."""
    rows = []
    for word in words:
        rng = np.random.default_rng(zlib.crc32(word.encode()))
        vector = rng.standard_normal(dim).astype(np.float32)
        rows.append(vector / np.linalg.norm(vector))
    return np.stack(rows)
