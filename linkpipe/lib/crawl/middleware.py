"""A downloader middleware counting requests and bytes received (cheaper than DownloaderStats)."""

from __future__ import annotations

from typing import Any

from scrapy.http import Request, Response

BYTES_STAT = "linkpipe/bytes_received"
REQUESTS_STAT = "linkpipe/requests"


class ResponseBytes:
    """Counts requests sent and status line + headers + body received (before decompression)."""

    def __init__(self, stats: Any) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Any) -> ResponseBytes:
        return cls(crawler.stats)

    def process_request(self, request: Request, spider: Any = None) -> None:
        self.stats.inc_value(REQUESTS_STAT)

    def process_response(
        self, request: Request, response: Response, spider: Any = None
    ) -> Response:
        size = 17 + len(response.body)
        for key, values in response.headers.items():
            size += sum(len(key) + len(value) + 4 for value in values)
        self.stats.inc_value(BYTES_STAT, size)
        return response
