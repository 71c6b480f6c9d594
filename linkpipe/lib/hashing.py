"""Stable hashes (sha1, the same in every process and run): content keys of texts, URL shards
(the second partition dimension of page-level assets) and URL samples."""

from __future__ import annotations

import hashlib

DEFAULT_SHARDS = 4


def text_hash(text: str) -> str:
    """sha1 hex of a text (UTF-8; lone surrogates kept): ``content_hash`` of a page's HTML,
    ``summary_hash`` of a summary, the key of caches and of exact-duplicate groups."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def url_number(url: str, n_bytes: int = 8) -> int:
    """The first ``n_bytes`` of the URL's sha1 as an unsigned big-endian integer."""
    return int.from_bytes(hashlib.sha1(url.encode("utf-8")).digest()[:n_bytes], "big")


def shard_of(url: str, n_shards: int = DEFAULT_SHARDS) -> int:
    """Stable shard number of a URL (its 64-bit hash modulo ``n_shards``)."""
    return url_number(url) % n_shards


def sampled(url: str, probability: float) -> bool:
    """Stable hash sample: the same URL is always in or out."""
    if probability >= 1.0:
        return True
    return url_number(url, 4) < probability * 0xFFFFFFFF
