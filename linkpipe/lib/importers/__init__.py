"""Crawl importers: a Screaming Frog export folder, a WARC file, or a URL list / sitemap.

Each reader checks its whole input and raises :class:`ImportFormatError` (file, line, column and a
one-line message) instead of returning a partial result.
"""

from collections.abc import Callable
from pathlib import Path

from linkpipe.lib.importers.errors import ImportFormatError
from linkpipe.lib.importers.model import ImportedCrawl
from linkpipe.lib.importers.screaming_frog import read_screaming_frog
from linkpipe.lib.importers.url_list import read_url_list
from linkpipe.lib.importers.warc import read_warc, read_warc_crawl

FILE_IMPORTERS: dict[str, Callable[[Path], ImportedCrawl]] = {
    "screaming_frog": read_screaming_frog,
    "warc": read_warc_crawl,  # a WARC without an HTML page is refused
}  # kinds read whole from a file; a URL list is fetched by the crawler instead
IMPORT_KINDS = (*FILE_IMPORTERS, "url_list")


def detect_import_kind(path: Path) -> str:
    """screaming_frog (a folder with internal_all.csv), warc (*.warc[.gz]) or url_list."""
    if path.is_dir():
        return "screaming_frog"
    name = path.name.lower()
    if name.endswith((".warc", ".warc.gz", ".arc.gz")):
        return "warc"
    return "url_list"


__all__ = [
    "FILE_IMPORTERS",
    "IMPORT_KINDS",
    "detect_import_kind",
    "ImportFormatError",
    "ImportedCrawl",
    "read_screaming_frog",
    "read_url_list",
    "read_warc",
    "read_warc_crawl",
]
