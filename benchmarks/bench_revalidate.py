"""CPU of a refresh's conditional requests (``lib/crawl/revalidate.py``), every page answering
304, beside a plain http.client loop on one connection (the standard library's floor) in the
same run.

    python benchmarks/bench_revalidate.py /usr/share/gimp/2.0/help/en --limit 10000 --rounds 3

Serves SITE_ROOT on 127.0.0.1 from a child process (its CPU is not counted), sends each of up
to ``--limit`` HTML pages' URLs (repeated to reach the limit on a small site) an
If-Modified-Since far in the future, and prints the median CPU milliseconds a request of each
client over ``--rounds`` rounds, alternating, and their ratio.
"""

from __future__ import annotations

import argparse
import http.client
import json
import resource
import statistics
from collections.abc import Callable
from itertools import cycle, islice
from pathlib import Path
from urllib.parse import urlsplit

from bench_meter import served_apart

from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.crawl.revalidate import revalidate

LATER = {"If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _product(base: str, paths: list[str]) -> int:
    requests = {f"{base}/{p}?n={i}": LATER for i, p in enumerate(paths)}
    config = CrawlConfig(base + "/", max_pages=len(paths), obey_robots=False)
    return len(revalidate(config, requests).not_modified)


def _plain(base: str, paths: list[str]) -> int:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.netloc, timeout=20)
    answered = 0
    for i, p in enumerate(paths):
        conn.request("GET", f"/{p}?n={i}", headers={"Accept-Encoding": "identity", **LATER})
        response = conn.getresponse()
        response.read()
        answered += response.status == 304
    conn.close()
    return answered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site_root", type=Path)
    parser.add_argument("--limit", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pages = sorted(str(p.relative_to(args.site_root)) for p in args.site_root.rglob("*.html"))
    paths = list(islice(cycle(pages), args.limit))
    clients: dict[str, Callable[[str, list[str]], int]] = {
        "revalidate": _product, "http.client, one connection": _plain
    }  # fmt: skip
    ms: dict[str, list[float]] = {name: [] for name in clients}
    with served_apart(args.site_root) as base:
        for _ in range(args.rounds):
            for name, client in clients.items():
                before = _cpu()
                answered = client(base, paths)
                assert answered == len(paths), f"{name}: {answered} of {len(paths)} answered 304"
                ms[name].append((_cpu() - before) * 1000 / len(paths))
    medians = {name: round(statistics.median(v), 4) for name, v in ms.items()}
    ratio = medians["revalidate"] / medians["http.client, one connection"]
    print(json.dumps({"requests": len(paths), "cpu_ms_a_request": medians, "ratio": ratio}))


if __name__ == "__main__":
    main()
