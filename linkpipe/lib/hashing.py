"""Stable hashes (sha1, the same in every process and run): content keys of texts, URL shards
(the second partition dimension of page-level assets) and URL samples. A URL's shard and sample
are hashed from the part that names the page on its site (:func:`site_key`), so a site served
elsewhere, on another host or port, is sharded and sampled the same way."""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata, util
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_SHARDS = 4


def text_hash(text: str) -> str:
    """sha1 hex of a text (UTF-8; lone surrogates kept): ``content_hash`` of a page's HTML,
    ``summary_hash`` of a summary, the key of caches and of exact-duplicate groups."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def site_key(url: str) -> str:
    """The path and query of a URL: what names the page on its site, whatever the host and port
    (``linkpipe eval`` serves each run on a new port: shards, samples and the weight fit's
    held-out sources once followed it, and so did the last bits of the model's batches)."""
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


def url_number(url: str, n_bytes: int = 8) -> int:
    """The first ``n_bytes`` of the sha1 of the URL's :func:`site_key` as an unsigned
    big-endian integer."""
    return int.from_bytes(hashlib.sha1(site_key(url).encode("utf-8")).digest()[:n_bytes], "big")


def shard_of(url: str, n_shards: int = DEFAULT_SHARDS) -> int:
    """Stable shard number of a URL (its 64-bit hash modulo ``n_shards``)."""
    return url_number(url) % n_shards


def sampled(url: str, probability: float) -> bool:
    """Stable hash sample: the same page is always in or out."""
    if probability >= 1.0:
        return True
    return url_number(url, 4) < probability * 0xFFFFFFFF


@functools.cache
def library_code_digest() -> str:
    """sha1 of every Python file of ``linkpipe.lib`` (read once per process): a stored result
    keyed by it is recomputed after any change of the code that made it."""
    return code_digest(("linkpipe.lib",))


@functools.cache
def code_digest(modules: tuple[str, ...], distributions: tuple[str, ...] = ()) -> str:
    """sha1 of the Python files of the ``modules`` (a package: every file under it) and of the
    installed versions of the ``distributions`` (read once per process)."""
    digest = hashlib.sha1()
    for name in modules:
        spec = util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ValueError(f"no module {name!r} to digest")
        folders = spec.submodule_search_locations
        files = sorted(p for f in folders for p in Path(f).rglob("*.py")) if folders else []
        for path in files or [Path(spec.origin)]:
            digest.update(path.as_posix().rsplit("linkpipe", 1)[-1].encode() + path.read_bytes())
    for name in distributions:
        digest.update(f"|{name}=={metadata.version(name)}".encode())
    return digest.hexdigest()
