"""No suggestion repeats a link already in the source's body text, end to end, on a small blog
whose article containers carry classes made from the posts' tags ("tagged-widgets",
"tag-sidebar") and whose heading ids are slugs ("footer-design-tips"). Issue 11: such a class made
every in-paragraph link of the pages tagged "Widgets" an "aside" link, and the pair was then
suggested again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import open_db
from linkpipe_tests.graph import crawl_and_run

CRAWL = "tags"
COMMON = (
    "A widget sits in a widget area that the theme registers, and the theme decides where each "
    "area shows: the sidebar beside the post, the footer under it, or a header bar above it. "
    "Site owners move widgets between areas from the customizer, preview the layout on a phone "
    "and a desktop, and publish when the columns, spacing and fonts look right to them."
)
# slug: (title, tags, paragraph with [[slug|anchor]] links)
POSTS: dict[str, tuple[str, list[str], str]] = {
    "sidebar-widgets": (
        "Sidebar widgets",
        ["Widgets", "Sidebar"],
        "Sidebar widgets hold search boxes and lists; a [[footer-widgets|footer widget]] holds "
        "contact details, and [[widget-areas|widget areas]] decide which is which.",
    ),
    "footer-widgets": (
        "Footer widgets",
        ["Widgets", "Footer"],
        "Footer widgets collect contact details and small menus; compare them with "
        "[[sidebar-widgets|sidebar widgets]] and keep the [[footer-design|footer design]] calm.",
    ),
    "widget-areas": (
        "Widget areas",
        ["Widgets"],
        "Widget areas are registered by the theme; [[register-sidebar|register a sidebar]] "
        "in code and [[sidebar-widgets|fill it with widgets]] from the customizer.",
    ),
    "register-sidebar": (
        "Register a sidebar",
        ["Widgets", "Code"],
        "To register a sidebar, call the function from the theme setup and name the "
        "[[widget-areas|widget area]]; then [[custom-widgets|write custom widgets]] for it.",
    ),
    "custom-widgets": (
        "Custom widgets",
        ["Widgets", "Code"],
        "Custom widgets extend the base class with a form and an output method; place them "
        "with [[register-sidebar|a registered sidebar]] or [[block-widgets|as blocks]].",
    ),
    "block-widgets": (
        "Block widgets",
        ["Widgets", "Blocks"],
        "Block widgets use the block editor in widget areas; [[custom-widgets|custom widgets]] "
        "still work, and [[sidebar-layout|sidebar layout]] choices stay with the theme.",
    ),
    "footer-design": (
        "Footer design",
        ["Footer", "Design"],
        "Footer design starts from the columns the footer widgets need; see "
        "[[footer-widgets|footer widgets]] and the [[sidebar-layout|sidebar layout]] guide.",
    ),
    "sidebar-layout": (
        "Sidebar layout",
        ["Sidebar", "Design"],
        "Sidebar layout means a left sidebar or a right sidebar beside the post; "
        "[[sidebar-widgets|sidebar widgets]] fill it and [[footer-design|the footer]] closes "
        "the page.",
    ),
    "mobile-menus": (
        "Mobile menus",
        ["Navigation", "Design"],
        "Mobile menus fold the header bar into a button; the "
        "[[sidebar-layout|sidebar layout]] drops below the post on a phone.",
    ),
}
BODY_LINK_RE = re.compile(r"\[\[([a-z-]+)\|([^\]]+)\]\]")


def _post_html(slug: str, title: str, tags: list[str], paragraph: str) -> str:
    classes = " ".join(
        [f"post-{len(slug)}", "post", "hentry"]
        + [f"tagged-{t}" for t in tags]
        + [f"tag-{t.lower()}" for t in tags]
        + [f"category-{t.lower()}-tips" for t in tags]
    )
    body = BODY_LINK_RE.sub(r'<a href="/blog/\1/">\2</a>', paragraph)
    sidebar = "".join(f'<li><a href="/blog/{s}/">{POSTS[s][0]}</a></li>' for s in list(POSTS)[:4])
    return f"""<!doctype html><html><head><title>{title} | Widget Works</title></head>
<body class="single right-sidebar tag-{tags[0].lower()}"><div id="page" class="site">
<div id="masthead" class="site-header"><a href="/">Widget Works</a>
 <div id="site-navigation" class="main-navigation"><a href="/blog/">Blog</a></div></div>
<div id="content" class="site-content"><div id="primary" class="content-area">
<article id="post-{slug}" class="{classes}"><h1>{title}</h1>
<div class="entry-content post-{slug}">
<h2 id="{slug}-basics">{title} basics</h2><p>{body}</p>
<h2 id="footer-design-tips">Footer design tips</h2><p>{COMMON}</p></div></article></div>
<div id="secondary" class="sidebar"><div class="widget widget_recent_entries"><ul>{sidebar}</ul>
</div></div></div>
<div id="colophon" class="site-footer"><a href="/about/">About</a></div></div></body></html>"""


def _write_site(root: Path) -> set[tuple[str, str]]:
    """The blog on disk; returns its body links as (source path, target path)."""
    body_links: set[tuple[str, str]] = set()
    listing = "".join(f'<li><a href="/blog/{s}/">{t}</a></li>' for s, (t, _, _) in POSTS.items())
    for path, html in [
        (
            "index.html",
            f"<html><head><title>Widget Works</title></head><body><ul>{listing}</ul>"
            f'<a href="/about/">About</a></body></html>',
        ),
        (
            "blog/index.html",
            f"<html><head><title>Blog</title></head><body><ul>{listing}</ul></body></html>",
        ),
        (
            "about/index.html",
            f"<html><head><title>About</title></head><body><p>{COMMON}</p></body></html>",
        ),
    ]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(html, encoding="utf-8")
    for slug, (title, tags, paragraph) in POSTS.items():
        folder = root / "blog" / slug
        folder.mkdir(parents=True)
        (folder / "index.html").write_text(_post_html(slug, title, tags, paragraph), "utf-8")
        body_links |= {
            (f"/blog/{slug}/", f"/blog/{t}/") for t, _ in BODY_LINK_RE.findall(paragraph)
        }
    return body_links


@pytest.fixture(scope="module")
def blog(tmp_path_factory, fake_model):
    """The blog crawled on loopback and run through link_opportunities with hashing-64."""
    root = tmp_path_factory.mktemp("tag-classes-site")
    body_links = _write_site(root)
    db = root.parent / "linkpipe.duckdb"
    with serve_site(root) as site:
        crawl_and_run(db, CRAWL, site.base_url + "/", fake_model, 40, "link_opportunities")
    return db, body_links


def _paths(db: Path, sql: str) -> list[tuple[str, ...]]:
    with open_db(db) as con:
        rows = con.execute(sql, [CRAWL]).fetchall()
    return [tuple(re.sub(r"^https?://[^/]+", "", value) for value in row) for row in rows]


def test_body_links_are_content_and_layout_links_are_not(blog) -> None:
    db, body_links = blog
    edges = _paths(db, "SELECT source_url, resolved_url, position FROM link_edges "
                       "WHERE crawl_id = ? AND source_url LIKE '%/blog/_%'")  # fmt: skip
    content = {(s, t) for s, t, p in edges if p == "content"}
    assert content == body_links  # every in-paragraph link, and nothing else, is content
    by_target = {(s, t): p for s, t, p in edges if (s, t) not in body_links}
    src = "/blog/footer-design/"
    assert by_target[(src, "/about/")] == "footer"
    assert by_target[(src, "/blog/")] == "navigation"
    assert by_target[(src, "/blog/register-sidebar/")] == "aside"


def test_no_opportunity_repeats_a_body_link(blog) -> None:
    db, body_links = blog
    rows = _paths(db, "SELECT source_url, target_url FROM link_opportunities WHERE crawl_id = ?")
    assert rows, "the blog should get suggestions"
    assert {(s, t) for s, t in rows} & body_links == set()
    sources = {s for s, _ in rows}
    assert sources <= {f"/blog/{slug}/" for slug in POSTS} | {"/", "/blog/", "/about/"}
