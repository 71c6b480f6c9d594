"""The built-in crawler: Scrapy in a subprocess, producing PageRecord/LinkRecord JSONL files.

result = run_crawl(CrawlConfig("https://example.com/", max_pages=500), Path("out"))
for page in result.iter_pages(): ...
"""

from linkpipe.lib.crawl.config import CrawlConfig, CrawlError, CrawlResult
from linkpipe.lib.crawl.runner import run_crawl

__all__ = ["CrawlConfig", "CrawlError", "CrawlResult", "run_crawl"]
