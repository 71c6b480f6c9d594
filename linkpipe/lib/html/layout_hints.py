"""Where a link sits, read from class and id names when the markup itself does not say.

**Structure first.** :mod:`linkpipe.lib.html.parse` reads a link's position from HTML5 elements and
ARIA roles before any name: ``<nav>``/``role=navigation``, ``<aside>``/``role=complementary``,
``<header>``/``role=banner`` and ``<footer>``/``role=contentinfo`` (outside sectioning content).
Class and id names are read only on elements without such markup, and never on the main-content
block (:func:`main_content_nodes`: ``<main>``, ``role=main``, ``itemprop=articleBody``, every
``<article>``, a lone ``<article>``'s ancestors where there is no ``<main>``, ``<body>``,
``<html>``), nor on an ancestor of it, nor on headings (``h1``-``h6``).

**The whole-name rule.** DocBook (``div.navheader``), Sphinx (``ul.toctree``), YUI (``#hd``) and
many older templates mark their parts only by names, but sites also generate class and id names from
content: tags (``tagged-Widgets``, ``tag-widgets``, ``category-sidebar-tips``), titles and slugs
(``post-how-to-build-a-sidebar``) and headings (``id="footer-design-tips"``). So each class name
(one entry of the class list) and the id is judged whole. It is split into tokens on every
character that is not a letter or digit and at lower-to-upper case changes (``sideNav``), and it is
a *layout name* when every token is

* a layout word (:data:`NAV_WORDS`, :data:`ASIDE_WORDS`, :data:`FOOTER_WORDS`,
  :data:`HEADER_WORDS`),
* a generic modifier (:data:`MODIFIERS`, about fifty: site, main, primary, left, right, top,
  bottom, wrapper, container, inner, outer, area, region... and the template prefixes wp, yui,
  md, td, wy, sphinx),
* a number or counter (``2`` of ``widget-2``, ``l1`` of ``toctree-l1``), or
* a compound of those written as one word, each part at least three letters (``sidenav``,
  ``navbar``, ``sitefooter``, ``widgetarea``),

and at least one token is or contains a layout word. The name written without separators may also
be one (``SideBar``). Any other token (``tagged``, ``tag``, ``category``, ``post``, ``how``,
``design``, ``specifying``...) makes the name content, whatever layout words it holds.

**Heading anchors.** An id that spells the text of the element's own visible heading
(``<section id="sidebar"><h2>Sidebar</h2>``, as docutils writes sections) names the section, not a
layout part; a visually hidden heading (``<div id="navigation"><h2 class="screen-reader-text">``)
does not count.

A layout name's position is its strongest word: navigation, then aside, footer, header.
"""

from __future__ import annotations

import re
from functools import lru_cache

from selectolax.lexbor import LexborHTMLParser, LexborNode

from linkpipe.lib.records import LinkPosition

NAV_WORDS = frozenset(
    """nav navbar navigation menu menubar breadcrumb breadcrumbs crumbs pagination pager toc
    navheader navfooter skiplink skiplinks toctree indexdiv indextable genindextable""".split()
)  # toctree...genindextable: Sphinx / DocBook tables of contents and indexes
ASIDE_WORDS = frozenset({"sidebar", "sidebox", "aside", "widget", "widgets"})
FOOTER_WORDS = frozenset({"footer", "colophon", "ft"})
HEADER_WORDS = frozenset({"header", "masthead", "hd"})
MODIFIERS = frozenset(
    """site page main global primary secondary tertiary top bottom left right side sub wrap
    wrapper container inner outer area region bar block col column box links link list item
    items panel mobile desktop collapse toggle dropdown fixed sticky scroll current active skip
    wp yui md td wy sphinx""".split()
)  # "site-footer", "left-sidebar", "widget-area", "td-sidebar"; "s-specifying-widgets" is a slug
LAYOUT_WORDS = NAV_WORDS | ASIDE_WORDS | FOOTER_WORDS | HEADER_WORDS
# Strongest first: a "footer-nav" is navigation, "footer-widgets" an aside.
POSITION_WORDS: tuple[tuple[LinkPosition, frozenset[str]], ...] = (
    ("navigation", NAV_WORDS),
    ("aside", ASIDE_WORDS),
    ("footer", FOOTER_WORDS),
    ("header", HEADER_WORDS),
)
HEADING_TAGS = frozenset("h1 h2 h3 h4 h5 h6".split())
MAIN_CONTENT_SELECTOR = "main, [role=main], [itemprop=articleBody]"
HIDDEN_MARKERS = ("screen-reader", "sr-only", "visually-hidden", "visuallyhidden", "assistive")
_CAMEL_RE = re.compile(r"([a-z0-9])([A-Z])")
_SPLIT_RE = re.compile(r"[^a-z0-9]+")
_COUNTER_RE = re.compile(r"[a-z]?[0-9]+")  # "2" of "widget-2", "l1" of "toctree-l1"
_MIN_PART = 3  # parts of a one-word compound: "hd" and "ft" only count as whole tokens


def name_tokens(name: str) -> list[str]:
    """Lower-case tokens of a class or id name, split on non-alphanumerics and camelCase."""
    return [t for t in _SPLIT_RE.split(_CAMEL_RE.sub(r"\1 \2", name).lower()) if t]


def _segments(token: str) -> list[str] | None:
    """The vocabulary words ``token`` is made of (numbers allowed), or None when it is not."""
    if _COUNTER_RE.fullmatch(token) or token in LAYOUT_WORDS or token in MODIFIERS:
        return [token]
    best: list[list[str] | None] = [[]] + [None] * len(token)
    for end in range(1, len(token) + 1):
        for start in range(max(0, end - 16), end - _MIN_PART + 1):
            part, head = token[start:end], best[start]
            if head is not None and (part in LAYOUT_WORDS or part in MODIFIERS):
                best[end] = [*head, part]
                break
    return best[-1] if best[-1] else None


def _words_position(words: list[str]) -> LinkPosition | None:
    for position, vocabulary in POSITION_WORDS:
        if any(word in vocabulary for word in words):
            return position
    return None


@lru_cache(maxsize=65_536)
def layout_name_position(name: str) -> LinkPosition | None:
    """Position named by one whole class or id name, or None when it is not a layout name."""
    tokens = name_tokens(name)
    words: list[str] = []
    for token in tokens:
        parts = _segments(token)
        if parts is None:
            return None  # a word from content: "tagged", "post", "design"...
        words += parts
    position = _words_position(words)
    if position is None and len(tokens) > 1:  # "SideBar": vocabulary words only, split apart
        position = _words_position(_segments("".join(tokens)) or [])
    return position


def _strongest(positions: list[LinkPosition]) -> LinkPosition | None:
    for position, _ in POSITION_WORDS:
        if position in positions:
            return position
    return None


def _is_heading_anchor(node: LexborNode, element_id: str) -> bool:
    """True when ``element_id`` spells the text of one of the element's first visible headings."""
    spelled = "".join(name_tokens(element_id))
    for index, child in enumerate(node.iter()):
        if index >= 3:
            break
        if child.tag not in HEADING_TAGS:
            continue
        classes = (child.attributes.get("class") or "").lower()
        hidden = any(marker in classes for marker in HIDDEN_MARKERS)
        if not hidden and "".join(name_tokens(child.text(deep=True))) == spelled:
            return True
    return False


def class_hint(node: LexborNode) -> LinkPosition | None:
    """Position named by an element's class and id names (``div.navfooter``, ``div#sidebar``,
    ``ul.menu``) under the whole-name rule; None for headings and names made from content."""
    if node.tag in HEADING_TAGS:
        return None
    attrs = node.attributes
    found = [layout_name_position(name) for name in (attrs.get("class") or "").split()]
    element_id = (attrs.get("id") or "").strip()
    id_position = layout_name_position(element_id) if element_id else None
    if id_position is not None and not _is_heading_anchor(node, element_id):
        found.append(id_position)
    return _strongest([p for p in found if p is not None])


def main_content_nodes(tree: LexborHTMLParser) -> set[int]:
    """``mem_id`` of the elements whose class/id names are never read: the main-content block
    (``<main>``, ``role=main``, ``itemprop=articleBody``, or a lone ``<article>`` when there is
    none of those) with its ancestors, every ``<article>``, and ``<body>``/``<html>``."""
    anchors = tree.css(MAIN_CONTENT_SELECTOR)
    articles = tree.css("article")
    if not anchors and len(articles) == 1:
        anchors = articles
    protected: set[int] = set()
    for anchor in anchors:
        node: LexborNode | None = anchor
        while node is not None and node.mem_id not in protected and node.tag != "-document":
            protected.add(node.mem_id)
            node = node.parent
    protected.update(article.mem_id for article in articles)
    for node in (tree.body, tree.root):
        if node is not None:
            protected.add(node.mem_id)
    return protected
