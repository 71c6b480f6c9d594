"""Generate a static test site for crawler benchmarks and serve-and-crawl it.

    python benchmarks/gen_site.py /tmp/site 2000            # write the site
    python benchmarks/gen_site.py /tmp/site 2000 --crawl    # write, serve on loopback, crawl, report

Every page has a header, a 30-link menu in plain <div>s (a template without semantic markup), a
body of ~1,500 words with ~10 in-text links, and a footer; pages are reached breadth-first through
20 section pages.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

WORDS = (
    "link crawl page site index graph anchor content section topic guide article product service "
    "search result summary example detail review price offer market team support contact blog news"
).split()


def _paragraph(rng: random.Random, n_pages: int, links: int) -> str:
    words = [rng.choice(WORDS) for _ in range(150)]
    for _ in range(links):
        i = rng.randrange(len(words))
        target = rng.randrange(n_pages)
        words[i] = f'<a href="/p/{target}/">{words[i]} {target}</a>'
    return "<p>" + " ".join(words) + "</p>"


def page_html(i: int, n_pages: int, rng: random.Random) -> str:
    """One page: template header/menu/footer around ~10 paragraphs with in-text links."""
    menu = "".join(
        f'<div class="item"><a href="/section/{s}/">Section {s}</a></div>' for s in range(20)
    )
    menu += "".join(
        f'<div class="item"><a href="/p/{k}/">Top page {k}</a></div>' for k in range(10)
    )
    body = "".join(_paragraph(rng, n_pages, 1) for _ in range(10))
    return (
        f"<!doctype html><html><head><title>Page {i}</title><meta name=description content='Page {i}'>"
        f'<link rel="canonical" href="/p/{i}/"></head><body><header><a href="/">Home</a></header>'
        f'<div class="menu">{menu}</div><main><h1>Page {i}</h1>{body}</main>'
        '<footer><a href="/about/">About</a><a href="/contact/">Contact</a>'
        '<a href="mailto:team@example.com">Mail</a></footer></body></html>'
    )


def generate(root: Path, n_pages: int, seed: int = 1) -> int:
    """Write ``n_pages`` pages plus home, 20 sections, about and contact; returns files written."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    files = 0
    for i in range(n_pages):
        (root / "p" / str(i)).mkdir(parents=True, exist_ok=True)
        (root / "p" / str(i) / "index.html").write_text(
            page_html(i, n_pages, rng), encoding="utf-8"
        )
        files += 1
    per_section = -(-n_pages // 20)
    for s in range(20):
        (root / "section" / str(s)).mkdir(parents=True, exist_ok=True)
        items = "".join(
            f'<li><a href="/p/{k}/">Page {k}</a></li>'
            for k in range(s * per_section, min(n_pages, (s + 1) * per_section))
        )
        html = f"<html><head><title>Section {s}</title></head><body><h1>Section {s}</h1><ul>{items}</ul></body></html>"
        (root / "section" / str(s) / "index.html").write_text(html, encoding="utf-8")
        files += 1
    for name in ("about", "contact"):
        (root / name).mkdir(exist_ok=True)
        (root / name / "index.html").write_text(
            f"<html><title>{name}</title><body>{name}</body></html>"
        )
        files += 1
    sections = "".join(f'<a href="/section/{s}/">Section {s}</a> ' for s in range(20))
    (root / "index.html").write_text(
        f"<html><title>Home</title><body><nav>{sections}</nav></body></html>"
    )
    return files + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, nargs="?")
    parser.add_argument("pages", type=int, nargs="?", default=2000)
    parser.add_argument("--crawl", action="store_true", help="serve the site and crawl it")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="linkpipe-site-"))
    files = generate(root, args.pages)
    print(f"wrote {files} pages under {root}")
    if not args.crawl:
        return
    from linkpipe.lib.crawl import CrawlConfig, run_crawl
    from linkpipe.lib.static_site import serve_site

    with serve_site(root) as site, tempfile.TemporaryDirectory() as out:
        started = time.monotonic()
        config = CrawlConfig(
            site.base_url + "/", max_pages=files + 10, concurrency=args.concurrency
        )
        result = run_crawl(config, Path(out))
        wall = time.monotonic() - started
        stats = result.stats
    keys = (
        "pages",
        "html_pages",
        "links",
        "template_links_reclassified",
        "elapsed_s",
        "pages_per_s",
    )
    print(
        json.dumps({k: stats[k] for k in keys} | {"wall_s_incl_startup": round(wall, 2)}, indent=1)
    )


if __name__ == "__main__":
    main()
