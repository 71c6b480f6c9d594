"""URL-hash shards: the second partition dimension of page-level assets."""

from __future__ import annotations

import hashlib

DEFAULT_SHARDS = 4


def shard_of(url: str, n_shards: int = DEFAULT_SHARDS) -> int:
    """Stable shard number of a URL (sha1 of the URL modulo ``n_shards``)."""
    digest = hashlib.sha1(url.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n_shards


def text_hash(text: str) -> str:
    """sha1 hex of a text: the content key of caches."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()
