"""What an importer returns: a whole crawl, ready for ``crawl_pages`` / ``crawl_links``."""

from __future__ import annotations

from dataclasses import dataclass, field

from linkpipe.lib.records import LinkRecord, PageRecord


@dataclass
class ImportedCrawl:
    """Pages and links of one imported crawl (never partial: importers raise instead)."""

    pages: list[PageRecord] = field(default_factory=list)
    links: list[LinkRecord] = field(default_factory=list)
    start_url: str = ""  # normalized URL of the shallowest (home/start) page
    warnings: list[str] = field(default_factory=list)  # one line each, for the run log
