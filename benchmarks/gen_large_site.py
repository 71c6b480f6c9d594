"""Generate a realistic large static documentation site, edit a share of its pages, serve it.

    pip install -e '.[bench]'                                         # wordfreq, psutil
    python benchmarks/gen_large_site.py generate /tmp/site-10k --pages 10000 --seed 1
    python benchmarks/gen_large_site.py edit /tmp/site-10k --percent 1 --round 1
    python benchmarks/gen_large_site.py serve /tmp/site-10k --port 8000

The site: T topics (~sqrt(N)/2), one section each, Zipf-sized; text is real English words drawn
by their wordfreq frequencies mixed with 28 % words of the page's topic vocabulary (160 real
words, Zipf-weighted); titles and H1s from topic words; page lengths log-normal (median 400
words, tail to 9,000); <h2> headings, code samples and lists. Every page has a header menu,
the sidebar of its section and a footer (semantic <header>/<nav>/<aside>/<footer> in two
sections out of three, plain <div class=...> in the others). In-content links: ~1 per 110
words, 85 % inside the section (Zipf over its pages, so hubs emerge), 15 % to a related section,
anchored by the title, a phrase of it or a generic "read more". Also: sitemap.xml (an index of
50,000-URL files above that), robots.txt (disallows /search/), 1 % orphans (sitemap only),
deep chains ("Part 1..15", each reached from the previous), 1 % near duplicates ("(Version 2)",
half canonicalised to their original) and 2 % thin pages. Pages are written one at a time
(5k pages: 36 MB in 3 s here; 100k: ~0.7 GB, 1-2 minutes, ~0.2 GB of memory). Deterministic
by --seed; `edit` rewrites one paragraph of exactly round(N x percent / 100) pages chosen by
--seed and --round. Rerunning `generate` on a folder it wrote replaces it.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
from sitegen_plan import default_topics, plan_site
from sitegen_render import Chrome, home_html, page_html, section_html, utility_html
from sitegen_text import build_vocabulary

VERSION = 1
SITEMAP_CHUNK = 50_000
LASTMOD = "2025-01-15"
META_FILE, PAGES_FILE = "_site.json", "_pages.txt"
UTILITY_PAGES = ("about", "contact", "privacy")
ROBOTS = "User-agent: *\nDisallow: /search/\nSitemap: __BASE_URL__/sitemap.xml\n"
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
_LINK = re.compile(r"(<a [^>]*>.*?</a>)", re.S)


@dataclass
class GeneratedSite:
    """What ``generate`` wrote."""

    root: str
    pages: int  # content pages (the N asked for)
    files: int  # HTML files, home, sections and utility pages included
    megabytes: float
    seconds: float
    topics: int
    seed: int
    kinds: dict[str, int] = field(default_factory=dict)
    edits: list[dict[str, Any]] = field(default_factory=list)


class SitemapWriter:
    """Streams URLs into sitemap files of 50,000 URLs; sitemap.xml indexes them when several."""

    def __init__(self, root: Path) -> None:
        self.root, self.files, self.count = root, 0, 0
        self._out: Any = None

    def __enter__(self) -> SitemapWriter:
        return self

    def add(self, path: str) -> None:
        if self._out is None or self.count % SITEMAP_CHUNK == 0:
            self._close_chunk()
            self.files += 1
            self._out = (self.root / f"sitemap-{self.files}.xml").open("w", encoding="utf-8")
            self._out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            self._out.write('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
        self._out.write(f"<url><loc>__BASE_URL__{path}</loc><lastmod>{LASTMOD}</lastmod></url>\n")
        self.count += 1

    def _close_chunk(self) -> None:
        if self._out is not None:
            self._out.write("</urlset>\n")
            self._out.close()
            self._out = None

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._close_chunk()
        if self.files == 1:
            (self.root / "sitemap-1.xml").replace(self.root / "sitemap.xml")
            return
        entries = "".join(
            f"<sitemap><loc>__BASE_URL__/sitemap-{k}.xml</loc></sitemap>\n"
            for k in range(1, self.files + 1)
        )
        (self.root / "sitemap.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex '
            f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{entries}</sitemapindex>\n',
            encoding="utf-8",
        )


def _prepare_root(root: Path) -> None:
    """An empty folder; a previous generated site there is removed, anything else refused."""
    if root.exists() and any(root.iterdir()):
        if not (root / META_FILE).exists():
            raise SystemExit(f"{root} is not empty and holds no generated site; not touching it")
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)


def generate_site(
    root: Path, n_pages: int, seed: int = 1, topics: int | None = None
) -> GeneratedSite:
    """Write a site of ``n_pages`` content pages under ``root`` (deterministic by ``seed``)."""
    started = time.perf_counter()
    _prepare_root(root)
    n_topics = topics or default_topics(n_pages)
    vocab = build_vocabulary(n_topics, seed)
    plan = plan_site(n_pages, seed, vocab, n_topics)
    chrome = Chrome.build(plan)
    size = 0
    with SitemapWriter(root) as sitemap:
        size += _write(root / "index.html", home_html(plan, vocab, chrome))
        sitemap.add("/")
        for section in plan.sections:
            (root / section.slug).mkdir()
            size += _write(
                root / section.slug / "index.html", section_html(plan, vocab, chrome, section)
            )
            sitemap.add(f"/{section.slug}/")
        for page, path in enumerate(plan.paths):
            size += _write(root / path.lstrip("/"), page_html(plan, vocab, chrome, page))
            sitemap.add(path)
        for name in UTILITY_PAGES:
            size += _write(root / f"{name}.html", utility_html(plan, vocab, chrome, name))
            sitemap.add(f"/{name}.html")
    (root / "search").mkdir()
    size += _write(root / "search" / "index.html", utility_html(plan, vocab, chrome, "search"))
    (root / "robots.txt").write_text(ROBOTS, encoding="utf-8")
    (root / PAGES_FILE).write_text("\n".join(plan.paths) + "\n", encoding="utf-8")
    site = GeneratedSite(
        str(root),
        n_pages,
        n_pages + len(plan.sections) + len(UTILITY_PAGES) + 2,
        round(size / 2**20, 1),
        round(time.perf_counter() - started, 1),
        n_topics,
        seed,
        dict(Counter(plan.kinds)),
    )
    _write_meta(root, site)
    return site


def _write(file: Path, html: str) -> int:
    data = html.encode("utf-8")
    file.write_bytes(data)
    return len(data)


def _write_meta(root: Path, site: GeneratedSite) -> None:
    (root / META_FILE).write_text(
        json.dumps({"version": VERSION, **asdict(site)}, indent=1), encoding="utf-8"
    )


def read_meta(root: Path) -> dict[str, Any] | None:
    """The ``_site.json`` of a generated site (None when absent)."""
    path = root / META_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _rewrite(inner: str, rng: np.random.Generator) -> str:
    """A paragraph's words shuffled in part: 30 % of its plain words replaced by others of it."""
    parts = _LINK.split(inner)  # odd items are links, kept as they are
    pool = [w.lower() for part in parts[::2] for w in part.split() if w.isalpha()] or ["updated"]
    out = []
    for i, part in enumerate(parts):
        tokens = part.split(" ")
        for j, token in enumerate(tokens):
            if i % 2 == 0 and token.isalpha() and rng.random() < 0.3:
                word = pool[int(rng.integers(len(pool)))]
                tokens[j] = word.capitalize() if token[:1].isupper() else word
        out.append(" ".join(tokens))
    return "".join(out) + " Updated."


def edit_site(
    root: Path,
    percent: float,
    seed: int = 1,
    round_: int = 1,
    backup: Path | None = None,
    renamed: float = 0.0,
) -> list[str]:
    """Rewrite one paragraph of round(N x percent / 100) content pages; return their paths.
    With ``backup``, the original files are kept there first (see :func:`restore_site`).
    ``renamed``: the share of the edited pages (0..1) that also get a new title and H1, made
    of words of the paragraph rewritten (new names the site's other pages hold)."""
    paths = (root / PAGES_FILE).read_text(encoding="utf-8").split()
    rng = np.random.default_rng([seed, 99, round_])
    chosen = sorted(rng.choice(len(paths), size=round(len(paths) * percent / 100), replace=False))
    for i in chosen:
        file = root / paths[i].lstrip("/")
        kept = backup / paths[i].lstrip("/") if backup is not None else None
        if kept is not None and not kept.exists():  # the original, not an earlier edit
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, kept)
        html = file.read_text(encoding="utf-8")
        paragraphs = list(_PARAGRAPH.finditer(html))
        if paragraphs:
            m = paragraphs[int(rng.integers(len(paragraphs)))]
            html = html[: m.start(1)] + _rewrite(m.group(1), rng) + html[m.end(1) :]
            if rng.random() < renamed:
                html = _retitle(html, m.group(1), rng)
            file.write_text(html, encoding="utf-8")
    meta = read_meta(root) or {}
    edit = {"percent": percent, "seed": seed, "round": round_, "pages": len(chosen)}
    edit |= {"renamed": renamed} if renamed else {}
    meta.setdefault("edits", []).append(edit)
    (root / META_FILE).write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return [paths[i] for i in chosen]


def _retitle(html: str, paragraph: str, rng: np.random.Generator) -> str:
    """The page with a new title and H1: "Notes on" and two words of ``paragraph``."""
    words = [w for w in _LINK.sub(" ", paragraph).split() if w.isalpha() and len(w) > 3]
    if len(words) < 2:
        return html
    at = int(rng.integers(len(words) - 1))
    title = f"Notes on {words[at].capitalize()} {words[at + 1].capitalize()}"
    html = re.sub(r"<title>.*?\|", f"<title>{title} |", html, count=1)
    return re.sub(r"<h1>.*?</h1>", f"<h1>{title}</h1>", html, count=1)


def restore_site(root: Path, backup: Path) -> int:
    """Put back the files :func:`edit_site` kept in ``backup``; the site counts as unedited."""
    restored = 0
    for file in backup.rglob("*.html"):
        shutil.copy2(file, root / file.relative_to(backup))
        restored += 1
    shutil.rmtree(backup)
    meta = read_meta(root) or {}
    meta["edits"] = []
    (root / META_FILE).write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return restored


def _serve(root: Path, port: int) -> None:
    from linkpipe.lib.static_site import serve_site

    with serve_site(root, port) as site:
        print(f"serving {root} at {site.base_url}/ (Ctrl-C stops)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("generate", help="write a site")
    p.add_argument("root", type=Path)
    p.add_argument("--pages", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--topics", type=int, default=None, help="default: ~sqrt(pages)/2")
    p = sub.add_parser("edit", help="rewrite one paragraph of a share of the pages")
    p.add_argument("root", type=Path)
    p.add_argument("--percent", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--round", type=int, default=1, help="another round edits other pages")
    p = sub.add_parser("serve", help="serve a site on 127.0.0.1")
    p.add_argument("root", type=Path)
    p.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    if args.command == "generate":
        print(
            json.dumps(
                asdict(generate_site(args.root, args.pages, args.seed, args.topics)), indent=1
            )
        )
    elif args.command == "edit":
        print(f"edited {len(edit_site(args.root, args.percent, args.seed, args.round))} pages")
    else:
        _serve(args.root, args.port)


if __name__ == "__main__":
    main()
