"""Where a link sits, read from class and id names when a page has no semantic markup.

DocBook (``div.navheader``), Sphinx (``div.sphinxsidebar``, ``ul.toctree``), YUI (``#hd``,
``#ft``) and many older templates mark navigation, sidebars, headers and footers only by names.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from linkpipe.lib.records import LinkPosition

HINT_SPLIT_RE = re.compile(r"[^a-z0-9]+")
NAV_TOKENS = frozenset(
    {
        "nav",
        "navbar",
        "navigation",
        "menu",
        "menubar",
        "breadcrumb",
        "breadcrumbs",
        "pagination",
        "pager",
        "toc",
        "navheader",
        "navfooter",
        "topnav",
        "subnav",
        "sidenav",
        "mainnav",
        "skiplink",
        "toctree",
        "indexdiv",
        "indextable",
        "genindextable",  # Sphinx / DocBook tables of contents
    }
)
ASIDE_TOKENS = frozenset({"sidebar", "sidebox", "aside", "widget", "widgets"})
FOOTER_TOKENS = frozenset({"footer", "colophon", "ft"})
HEADER_TOKENS = frozenset({"header", "masthead", "hd"})
LAYOUT_ID_MODIFIERS = frozenset(
    """site page main global primary secondary top bottom left right side sub wrap wrapper
    container inner outer area region bar block col column box links panel mobile desktop
    collapse toggle fixed sticky""".split()
)  # "site-footer" and "left-sidebar" are layout ids; "s-specifying-widgets" is a heading slug


LAYOUT_TOKENS = NAV_TOKENS | ASIDE_TOKENS | FOOTER_TOKENS | HEADER_TOKENS


def _is_nav_word(token: str) -> bool:
    return token in NAV_TOKENS or token.startswith("nav") or token.endswith(("nav", "menu"))


def _is_layout_word(token: str) -> bool:
    return token in LAYOUT_TOKENS or _is_nav_word(token)


def _layout_id_tokens(node: LexborNode) -> set[str]:
    """The words of an element's id when the id names a layout part ("site-footer",
    "main-nav", "sidebar"); none when other words make it a slug of a heading or a page
    (Sphinx: ``id="s-specifying-widgets"``, ``id="ref-forms-widgets"``)."""
    tokens = {t for t in HINT_SPLIT_RE.split((node.attributes.get("id") or "").lower()) if t}
    if all(_is_layout_word(t) or t in LAYOUT_ID_MODIFIERS or t.isdigit() for t in tokens):
        return tokens
    return set()


def class_hint(node: LexborNode) -> LinkPosition | None:
    """Position suggested by the class and id names of an element without semantic markup
    (``div.navfooter``, ``div#sidebar``, ``ul.menu``), as on DocBook, Sphinx or older sites."""
    attrs = node.attributes
    tokens = {t for t in HINT_SPLIT_RE.split((attrs.get("class") or "").lower()) if t}
    tokens.update(_layout_id_tokens(node))
    if not tokens:
        return None
    if any(_is_nav_word(t) for t in tokens):
        return "navigation"
    if tokens & ASIDE_TOKENS:
        return "aside"
    if tokens & FOOTER_TOKENS:
        return "footer"
    if tokens & HEADER_TOKENS:
        return "header"
    return None
