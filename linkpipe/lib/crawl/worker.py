"""Crawl worker process: ``python -m linkpipe.lib.crawl.worker CONFIG_JSON OUT_DIR``.

Runs the Scrapy spider (Twisted's reactor cannot restart, so each crawl gets its own process),
then reclassifies template links and writes ``stats.json``. ``CONFIG_JSON`` is a path to a JSON
file (or an inline JSON object). Progress lines ``LINKPIPE-PROGRESS <fetched> <queued>`` go to
stderr. Exit status 0 = crawl usable, 2 = fatal (the message is in ``stats.json["fatal"]``).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from scrapy.crawler import CrawlerProcess

from linkpipe.lib.crawl.config import LINKS_FILE, PROGRESS_PREFIX, STATS_FILE, CrawlConfig
from linkpipe.lib.crawl.fetch import ERROR_WORDS
from linkpipe.lib.crawl.middleware import BYTES_STAT, REQUESTS_STAT
from linkpipe.lib.crawl.output import RAW_LINKS_FILE, CrawlOutput, PreviousCrawl
from linkpipe.lib.crawl.revalidate import Revalidation, revalidate
from linkpipe.lib.crawl.spider import LinkSpider
from linkpipe.lib.html.templates import apply_to_links_file
from linkpipe.lib.urls import same_site

_MW = "scrapy.downloadermiddlewares."


def scrapy_settings(cfg: CrawlConfig) -> dict[str, Any]:
    """Scrapy settings for a crawl (redirects, robots and offsite handled by the spider)."""
    settings: dict[str, Any] = {
        "USER_AGENT": cfg.user_agent,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": cfg.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": cfg.concurrency,
        "CONCURRENT_ITEMS": 2,  # callbacks return a few requests; 100 workers/response cost more
        "DOWNLOAD_DELAY": 0,
        "DOWNLOAD_TIMEOUT": cfg.request_timeout_s,
        "DNS_TIMEOUT": max(1, int(cfg.request_timeout_s)),
        "DOWNLOAD_MAXSIZE": max(64 * 1024 * 1024, 8 * cfg.max_bytes),  # decompression-bomb guard
        "DOWNLOAD_WARNSIZE": 0,
        "RETRY_TIMES": cfg.retry_times,
        "RETRY_GIVE_UP_LOG_LEVEL": "INFO",
        "CLOSESPIDER_TIMEOUT": cfg.total_time_s,
        "AUTOTHROTTLE_ENABLED": cfg.autothrottle,
        "LOG_LEVEL": "ERROR",
        "LOGSTATS_INTERVAL": 0,
        "TELNETCONSOLE_ENABLED": False,
        "MEMUSAGE_ENABLED": False,
        "DOWNLOADER_MIDDLEWARES": {
            _MW + "redirect.MetaRefreshMiddleware": None,
            _MW + "offsite.OffsiteMiddleware": None,
            _MW + "robotstxt.RobotsTxtMiddleware": None,
            _MW + "httpauth.HttpAuthMiddleware": None,
            _MW + "stats.DownloaderStats": None,
            "linkpipe.lib.crawl.middleware.ResponseBytes": 850,  # before decompression
        },
        "SPIDER_MIDDLEWARES": {
            "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
            "scrapy.spidermiddlewares.referer.RefererMiddleware": None,
            "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
        },
    }
    if sys.platform.startswith("linux"):
        settings["TWISTED_REACTOR"] = "twisted.internet.epollreactor.EPollReactor"  # ~20% faster
    if cfg.job_dir:
        settings["JOBDIR"] = cfg.job_dir
    return settings


def revalidate_previous(cfg: CrawlConfig) -> tuple[PreviousCrawl, Revalidation]:
    """The previous crawl's pages, and which of them answered 304 to a conditional request
    sent before the spider starts (none without ``revalidate_first``, or with autothrottle,
    whose pace the spider sets)."""
    path = Path(cfg.previous_path) if cfg.previous_path else None
    previous = PreviousCrawl(path, cfg.normalization())
    if not cfg.revalidate_first or cfg.autothrottle or not previous.index:
        return previous, Revalidation({})
    requests = {url: previous.headers(url) for url in previous.index}
    return previous, revalidate(cfg, requests, _print_progress)


def _print_progress(answered: int, left: int) -> None:
    print(f"{PROGRESS_PREFIX} {answered} {left}", file=sys.stderr, flush=True)


def fatal_message(spider: LinkSpider, html_pages: int) -> str:
    """One line saying why the crawl is unusable ("" when it is usable)."""
    if html_pages:
        return ""
    url = spider.start_url
    record = spider.outcomes.get(url)
    seen = {url}
    while record is not None and record.redirect_chain and record.final_url not in seen:
        if record.redirect_loop:
            return f"{url} redirects in a loop: {' -> '.join(record.redirect_chain)}"
        seen.add(record.final_url)
        record = spider.outcomes.get(record.final_url, record)
    if record is None:
        return f"could not reach {url} : no response before the crawl stopped"
    if record.redirect_chain and not same_site(
        record.final_url, spider.frontier.hosts, spider.cfg.allow_subdomains
    ):
        return (
            f"no HTML page found: {url} redirects to {record.final_url}, a second host besides"
            f" {spider.flags['redirect_host']} (a start URL's redirects may add one host)"
        )
    if record.redirect_loop:
        return f"{url} redirects in a loop: {' -> '.join(record.redirect_chain)}"
    if record.robots_disallowed:
        return f"{record.url} is disallowed by robots.txt for user agent {spider.cfg.user_agent!r}"
    if record.error:
        return f"could not reach {record.url} : {ERROR_WORDS.get(record.error, record.error)}"
    if record.status and not 200 <= record.status < 300:
        return f"no HTML page found: {record.url} answered HTTP {record.status}"
    if record.redirect_chain:
        return f"no HTML page found: {url} redirects to {record.final_url}, which was not crawled"
    return f"no HTML page found: {record.url} is {record.content_type or 'an empty response'}"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m linkpipe.lib.crawl.worker CONFIG_JSON OUT_DIR", file=sys.stderr)
        return 64
    raw = argv[1]
    data = json.loads(
        raw if raw.lstrip().startswith("{") else Path(raw).read_text(encoding="utf-8")
    )
    cfg = CrawlConfig.from_dict(data)
    out_dir = Path(argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    previous, revalidation = revalidate_previous(cfg)
    process = CrawlerProcess(settings=scrapy_settings(cfg))
    crawler = process.create_crawler(LinkSpider)
    process.crawl(
        crawler,
        config=cfg.to_dict(),
        out_dir=str(out_dir),
        previous=previous,
        revalidated=revalidation.not_modified,
    )
    process.start()
    elapsed = time.monotonic() - started
    spider = crawler.spider
    if not isinstance(spider, LinkSpider) or spider.output is None:
        raise SystemExit("crawl worker: the spider never started")
    raw_links = out_dir / RAW_LINKS_FILE
    reclassified = apply_to_links_file(spider.templates, raw_links, out_dir / LINKS_FILE)
    if not cfg.job_dir:  # a resumable crawl appends to the raw links when it resumes
        raw_links.unlink()
    scrapy_stats = crawler.stats.get_stats() if crawler.stats else {}
    stats = crawl_stats(spider, spider.output, scrapy_stats, elapsed, reclassified)
    stats["requests"] += revalidation.requests
    stats["bytes_received"] += revalidation.bytes_received
    (out_dir / STATS_FILE).write_text(json.dumps(stats, indent=2), encoding="utf-8")
    return 2 if stats["fatal"] else 0


def crawl_stats(
    spider: LinkSpider,
    output: CrawlOutput,
    scrapy_stats: dict[str, Any],
    elapsed: float,
    reclassified: int,
) -> dict[str, Any]:
    """The contents of ``stats.json``."""
    sitemap_skips, sitemap_files = spider.sitemap_stats()
    skipped = spider.frontier.skipped + Counter(sitemap_skips)
    skipped["non_crawlable_scheme"] = spider.tally["skipped_links"]
    return {
        "start_url": spider.start_url,
        "pages": output.counts["pages"],
        "html_pages": output.counts["html_pages"],
        "fetched": spider.tally["fetched"],
        "links": output.counts["links"],
        "template_links_reclassified": reclassified,
        "status": dict(sorted(output.status.items())),
        "errors": dict(sorted(output.errors.items())),
        "skipped": dict(sorted(skipped.items())),
        "bytes_received": int(scrapy_stats.get(BYTES_STAT, 0)),
        "requests": int(scrapy_stats.get(REQUESTS_STAT, 0)),
        "retries": int(scrapy_stats.get("retry/count", 0)),
        "sitemap_urls": len(spider.sitemap),
        "sitemap_files": sitemap_files,
        "redirect_host": spider.flags["redirect_host"],
        "crawl_delay_s": dict(spider.flags["crawl_delay_s"]),
        "in_sitemap": output.counts["in_sitemap"],
        "truncated": output.counts["truncated"],
        "not_modified": output.counts["not_modified"],
        "revalidated_first": spider.tally["revalidated"],
        "parses_reused": spider.tally["parses_reused"],
        "elapsed_s": round(elapsed, 3),
        "pages_per_s": round(spider.tally["fetched"] / elapsed, 1) if elapsed else 0.0,
        "finish_reason": str(scrapy_stats.get("finish_reason", "")),
        "fatal": fatal_message(spider, output.counts["html_pages"]),
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv))
