"""Crawl importers: a Screaming Frog export folder, a WARC file, or a URL list / sitemap.

Each reader checks its whole input and raises :class:`ImportFormatError` (file, line, column and a
one-line message) instead of returning a partial result.
"""

from linkpipe.lib.importers.errors import ImportFormatError
from linkpipe.lib.importers.model import ImportedCrawl
from linkpipe.lib.importers.screaming_frog import read_screaming_frog
from linkpipe.lib.importers.url_list import read_url_list
from linkpipe.lib.importers.warc import read_warc

__all__ = [
    "ImportFormatError",
    "ImportedCrawl",
    "read_screaming_frog",
    "read_url_list",
    "read_warc",
]
