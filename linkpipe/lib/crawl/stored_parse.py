"""The crawler's parse of a page, kept with the crawl so that a page answering 304 Not Modified
on the next crawl is not parsed again.

A nightly refresh of a large site gets 304 for nine pages in ten; parsing each again (the HTML
read back and decompressed, its links found and normalized, then encoded for the links file)
was most of the crawler's CPU. A stored parse holds what :class:`~linkpipe.lib.html.parse.
ParsedPage` yields, the links already as the lines of the links file, and the key of the code
and settings that made it (:func:`parse_key`): a parse made by other code or with other hosts,
subdomain or URL rules is not used, and the page is parsed again.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from linkpipe.lib.hashing import code_digest
from linkpipe.lib.html.parse import ParsedPage
from linkpipe.lib.records import LinkRecord

PARSING_CODE = ("linkpipe.lib.html", "linkpipe.lib.urls", "linkpipe.lib.records")
META_FIELDS = ("title", "h1", "meta_description", "canonical", "meta_robots", "page_type")

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def link_line(link: LinkRecord) -> str:
    """One line of the crawler's links file."""
    return _encode(dict(link.__dict__)) + "\n"


def parse_key(
    hosts: Collection[str], allow_subdomains: bool, trailing_slash: str,
    strip_params: Collection[str],
) -> str:  # fmt: skip
    """The key of a parse: the parsing code and selectolax, and the settings it read."""
    settings = [sorted(hosts), allow_subdomains, trailing_slash, sorted(strip_params)]
    text = code_digest(PARSING_CODE, ("selectolax",)) + json.dumps(settings)
    return hashlib.sha1(text.encode()).hexdigest()


@dataclass
class StoredParse:
    """What the crawler takes from one parse of a page."""

    key: str
    meta: dict[str, Any]  # META_FIELDS, hreflang, meta_refresh, skipped_links, base_url
    hrefs: list[str]  # each link's href as written
    targets: list[str]  # each link's normalized target URL
    internal: list[bool]  # whether each target is on the site
    anchors: list[str]  # each link's anchor text (with targets and blocks: template counts)
    blocks: list[str]  # each link's block id
    links_text: str  # the links as lines of the links file

    @classmethod
    def of(cls, parsed: ParsedPage, key: str) -> StoredParse:
        """The stored form of a parse just made."""
        meta = {name: getattr(parsed, name) for name in META_FIELDS}
        meta.update(
            hreflang=parsed.hreflang, meta_refresh=parsed.meta_refresh,
            skipped_links=parsed.skipped_links, base_url=parsed.base_url,
        )  # fmt: skip
        links = parsed.links
        return cls(
            key, meta, list(parsed.hrefs), [link.target_url for link in links],
            [link.internal for link in links], [link.anchor_text for link in links],
            [link.block_id for link in links], "".join(link_line(link) for link in links),
        )  # fmt: skip

    def links(self) -> list[LinkRecord]:
        """The links as records."""
        return [LinkRecord(**json.loads(line)) for line in self.links_text.splitlines()]

    def pairs(self) -> list[tuple[str, str]]:
        """Each link's (target, anchor text), as template detection counts them."""
        return list(zip(self.targets, self.anchors, strict=True))

    def encode(self) -> bytes:
        """zlib-compressed JSON (the ``parse_z`` column of ``crawl_parses``)."""
        data = [
            self.key, self.meta, self.hrefs, self.targets, self.internal, self.anchors,
            self.blocks, self.links_text,
        ]  # fmt: skip
        return zlib.compress(_encode(data).encode("utf-8"), 1)


def decode_parse(blob: bytes, key: str) -> StoredParse | None:
    """The stored parse in ``blob`` when it was made with ``key`` (None otherwise, or when
    the blob cannot be read)."""
    try:
        data = json.loads(zlib.decompress(blob))
        if data[0] != key:
            return None
        return StoredParse(*data)
    except (zlib.error, ValueError, TypeError, IndexError):
        return None
