"""Link-recovery evaluation: remove in-content links from a static site and score ranked
suggestions against them (the metrics are in :mod:`linkpipe.evaluation.metrics`, the baselines
in :mod:`linkpipe.evaluation.baselines`).

Pages are named by their path under the site root (``guide/index.html``, ``page.html``).

* Content link: an ``<a href>`` with text whose href resolves to another HTML page of the site and
  that is not inside ``nav``/``header``/``footer``/``aside``, an element with role navigation,
  banner, contentinfo, complementary, search or menu, or an element whose class or id names
  navigation (classes ``nav*``, ``*sidebar*``, ``breadcrumb*``, ``menu``, ``toc``/``toctree``,
  ``related``, ``pager``/``pagination``, ``header``/``footer``, the back-of-book index tables of
  DocBook and Sphinx ``index``/``indexdiv``/``genindextable``; whole ids such as ``nav``,
  ``sidebar``, ``header``, YUI's ``hd``/``ft``: an id made of content words, like Sphinx's
  ``s-host-header-poisoning``, is not navigation), and whose text says
  something: image-only links, generic texts ("here", "next") and bracketed or numeric texts
  ("[1]", "[source]", Sphinx's "[docs]") are left out.
* Removal: a seeded share of the distinct (source, target) pairs linked in content is drawn
  (``unit="link"`` draws single links instead); each of their content links is replaced by its
  inner content, every other byte of the file is kept.
"""

from __future__ import annotations

import posixpath
import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from linkpipe.evaluation.metrics import Pair
from linkpipe.lib.text.lexical import is_generic_anchor

HTML_SUFFIXES = (".html", ".htm")
LANDMARK_TAGS = frozenset({"nav", "header", "footer", "aside"})
NAV_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search", "menu"})
NAV_CLASS_RE = re.compile(
    r"^nav|[-_]nav|sidebar|breadcrumb|^(?:menu|toc|toctree|related|pager|pagination|header|footer"
    r"|masthead|index|indexdiv|indextable|genindextable)(?:$|[-_])",
    re.IGNORECASE,
)
# ids name sections after their content ("s-host-header-poisoning"): only whole known ids count
NAV_ID_RE = re.compile(
    r"^(?:nav|navigation|navbar|global-nav|menu|sidebar|breadcrumbs?|hd|ft|header|footer|masthead)$",
    re.IGNORECASE,
)
VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()
)
SKIP_TAGS = frozenset({"head", "script", "style", "template", "noscript"})
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
BASE_URL_PLACEHOLDER = "__BASE_URL__"
BRACKETED_RE = re.compile(r"^[\[(].*[\])]$|^[\W\d_]*$")


@dataclass(frozen=True)
class RemovedLink:
    """One removed link: source and target page paths and the link text that stayed."""

    source: str
    target: str
    text: str


@dataclass(frozen=True)
class LinkSpan:
    """An ``<a>`` element in a page's text: outer span, inner span, target path, text."""

    start: int
    inner_start: int
    inner_end: int
    end: int
    target: str | None  # page path, None when not an internal HTML page
    text: str
    in_content: bool


def html_pages(root: Path) -> set[str]:
    """Relative POSIX paths of the HTML files under ``root``."""
    return {
        p.relative_to(root).as_posix()
        for p in Path(root).rglob("*")
        if p.suffix.lower() in HTML_SUFFIXES and p.is_file()
    }


def resolve_href(source: str, href: str, pages: set[str]) -> str | None:
    """The page path an href of page ``source`` points to, or None (external, fragment, missing)."""
    href = href.strip()
    if href.startswith(BASE_URL_PLACEHOLDER):
        href = href[len(BASE_URL_PLACEHOLDER) :] or "/"
    if not href or href.startswith(("#", "//")) or SCHEME_RE.match(href):
        return None
    path = unquote(urlsplit(href).path)
    if not path:
        return None
    joined = (
        path.lstrip("/")
        if path.startswith("/")
        else posixpath.join(posixpath.dirname(source), path)
    )
    joined = posixpath.normpath(joined) if joined else "."
    if joined.startswith(".."):
        return None
    if path.endswith("/") or joined == ".":
        joined = "index.html" if joined == "." else joined + "/index.html"
    if joined in pages:
        return joined
    return joined + "/index.html" if joined + "/index.html" in pages else None


def url_to_path(url: str, base_url: str, pages: set[str]) -> str | None:
    """The page path of a crawled URL (``dir/`` and ``dir/index.html`` are the same page)."""
    base = base_url.rstrip("/")
    if not url.startswith(base):
        return None
    rest = url[len(base) :]
    return resolve_href("", rest if rest.startswith("/") else "/" + rest, pages)


def path_to_url(path: str, base_url: str) -> str:
    """The URL of a page path on the served site (``dir/index.html`` -> ``base/dir/``)."""
    if path == "index.html" or path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return base_url.rstrip("/") + "/" + quote(path)


def _is_nav(tag: str, attrs: dict[str, str]) -> bool:
    if tag in LANDMARK_TAGS or (attrs.get("role") or "").strip().lower() in NAV_ROLES:
        return True
    if NAV_ID_RE.match((attrs.get("id") or "").strip()):
        return True
    return any(NAV_CLASS_RE.search(t) for t in (attrs.get("class") or "").split())


@dataclass
class _OpenLink:
    """An ``<a href>`` whose end tag is still to come, with the text seen so far."""

    start: int
    inner_start: int
    href: str
    excluded: bool
    text: list[str] = field(default_factory=list)


class _LinkScanner(HTMLParser):
    """Every ``<a href>`` of a page with character offsets and whether it is a content link."""

    def __init__(self, text: str, source: str, pages: set[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.text, self.source, self.pages = text, source, pages
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.stack: list[tuple[str, bool]] = []  # (tag, excluded)
        self.open: _OpenLink | None = None
        self.links: list[LinkSpan] = []

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        excluded = (self.stack[-1][1] if self.stack else False) or tag in SKIP_TAGS
        excluded = excluded or _is_nav(tag, values)
        if tag == "a" and self.open is None and "href" in values:
            start = self._offset()
            inner_start = start + len(self.get_starttag_text() or "")
            self.open = _OpenLink(start, inner_start, values["href"], excluded)
        if tag not in VOID_TAGS:
            self.stack.append((tag, excluded))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        return  # <br/>, <img/>: no content, no nesting

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.open is not None:
            inner_end = self._offset()
            end = self.text.find(">", inner_end) + 1 or len(self.text)
            o, self.open = self.open, None
            text = " ".join("".join(o.text).split())
            target = resolve_href(self.source, o.href, self.pages)
            target = None if target == self.source else target
            content = bool(target and not o.excluded and is_telling_text(text))
            self.links.append(
                LinkSpan(o.start, o.inner_start, inner_end, end, target, text, content)
            )
        if any(t == tag for t, _ in self.stack):
            while self.stack and self.stack.pop()[0] != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self.open is not None:
            self.open.text.append(data)


def is_telling_text(text: str) -> bool:
    """False for link texts that say nothing: empty, generic ("here"), bracketed ("[1]")."""
    return bool(text) and not is_generic_anchor(text) and not BRACKETED_RE.match(text)


def scan_links(text: str, source: str, pages: set[str]) -> list[LinkSpan]:
    """Every link of one page (``text`` decoded), with offsets into ``text``."""
    scanner = _LinkScanner(text, source, pages)
    scanner.feed(text)
    scanner.close()
    return scanner.links


def read_page(path: Path) -> str:
    """A page's text, decoded so that encoding it again gives the very same bytes."""
    return path.read_bytes().decode("utf-8", "surrogateescape")


def content_link_pairs(root: Path, pages: set[str] | None = None) -> set[Pair]:
    """Distinct (source, target) pairs linked in content in the HTML files under ``root``."""
    pages = pages if pages is not None else html_pages(root)
    return {
        (source, link.target)
        for source in sorted(pages)
        for link in scan_links(read_page(root / source), source, pages)
        if link.in_content and link.target
    }


def remove_links(root: Path, fraction: float, seed: int, unit: str = "pair") -> list[RemovedLink]:
    """Remove a seeded share of the content links of the site under ``root`` in place."""
    root = Path(root)
    pages = html_pages(root)
    spans: dict[str, list[LinkSpan]] = {}
    for source in sorted(pages):
        links = [s for s in scan_links(read_page(root / source), source, pages) if s.in_content]
        if links:
            spans[source] = links
    rng = random.Random(seed)
    if unit == "pair":
        pairs = sorted({(s, link.target) for s, links in spans.items() for link in links})
        chosen = set(rng.sample(pairs, round(fraction * len(pairs))))
        picked = {(s, i) for s, links in spans.items() for i, link in enumerate(links)
                  if (s, link.target) in chosen}  # fmt: skip
    elif unit == "link":
        every = [(s, i) for s, links in spans.items() for i in range(len(links))]
        picked = set(rng.sample(every, round(fraction * len(every))))
    else:
        raise ValueError(f"unit must be 'pair' or 'link', not {unit!r}")
    removed: list[RemovedLink] = []
    for source, links in spans.items():
        drop = [link for i, link in enumerate(links) if (source, i) in picked]
        if not drop:
            continue
        text = read_page(root / source)
        out, last = [], 0
        for link in drop:
            out += [text[last : link.start], text[link.inner_start : link.inner_end]]
            last = link.end
            removed.append(RemovedLink(source, link.target or "", link.text))
        out.append(text[last:])
        (root / source).write_bytes("".join(out).encode("utf-8", "surrogateescape"))
    return removed


def ground_truth(
    removed: Iterable[RemovedLink], still_linked: set[Pair], pages: set[str] | None = None
) -> dict[Pair, list[str]]:
    """Removed pairs with no content link left (and both ends in ``pages``) -> their link texts."""
    truth: dict[Pair, list[str]] = defaultdict(list)
    for link in removed:
        pair = (link.source, link.target)
        if pair in still_linked or (pages is not None and not set(pair) <= pages):
            continue
        if link.text not in truth[pair]:
            truth[pair].append(link.text)
    return dict(truth)
