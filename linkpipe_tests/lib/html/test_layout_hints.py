"""Link positions from structure first, and from class/id names only when the whole name is layout
vocabulary: names made from tags, titles, slugs and headings never move a body link out of
"content" (issue 11: every in-paragraph link of pages tagged "Widgets" was stored as "aside")."""

from __future__ import annotations

import pytest

from linkpipe.lib.html.layout_hints import layout_name_position, name_tokens
from linkpipe.lib.html.parse import parse_page


def _positions(html: str, url: str = "http://ex.com/page/") -> list[tuple[str, str]]:
    return [(link.anchor_text, link.position) for link in parse_page(html, url, {"ex.com"}).links]


@pytest.mark.parametrize(
    ("name", "position"),
    [
        # layout names: every token is layout vocabulary, a modifier or a counter
        ("sidebar", "aside"),
        ("left-sidebar", "aside"),
        ("widget-area", "aside"),
        ("widget", "aside"),
        ("sphinxsidebarwrapper", "aside"),
        ("SideBar", "aside"),
        ("site-footer", "footer"),
        ("ft", "footer"),
        ("page-header", "header"),
        ("md-header__inner", "header"),
        ("nav-menu", "navigation"),
        ("navbar-nav", "navigation"),
        ("sideNav", "navigation"),
        ("breadcrumbs", "navigation"),
        ("menu-item-123", "navigation"),
        ("toctree-l1", "navigation"),
        ("footer-nav", "navigation"),  # the strongest word wins
        ("footer-widgets", "aside"),
        # names made from content: tags, categories, titles, slugs, heading ids
        ("tagged-widgets", None),
        ("tagged-Widgets", None),
        ("tag-widgets", None),
        ("category-sidebar-tips", None),
        ("category-footer-design", None),
        ("product_tag-footer", None),
        ("post-how-to-build-a-sidebar", None),
        ("footer-design-tips", None),
        ("s-specifying-widgets", None),
        ("widget_recent_entries", None),  # the "widget" class beside it is what says aside
        # layout-ish words with no layout part, and look-alikes
        ("main-content", None),
        ("wy-nav-content", None),  # Read the Docs' main column
        ("col-3", None),
        ("navy", None),
        ("canvas", None),
        ("stock", None),
        ("", None),
    ],
)
def test_whole_name_rule(name: str, position: str | None) -> None:
    assert layout_name_position(name) == position


def test_name_tokens_split_on_separators_and_camel_case() -> None:
    assert name_tokens("mainNav__item--Active") == ["main", "nav", "item", "active"]
    assert name_tokens("tagged-Widgets") == ["tagged", "widgets"]


BLOG_POST = """<!doctype html><html><head><title>How to build a sidebar widget</title></head>
<body class="post-template-default single single-post postid-123 right-sidebar has-sidebar
 tag-widgets">
<div id="page" class="site">
 <div id="masthead" class="site-header">
  <p class="site-title"><a href="/">Widget Works</a></p>
  <div id="site-navigation" class="main-navigation"><ul id="primary-menu" class="menu">
   <li class="menu-item"><a href="/blog/">Blog</a></li></ul></div>
 </div>
 <div id="content" class="site-content"><div id="primary" class="content-area">
  <div id="main" class="site-main">
   <article id="post-123" class="post-123 post type-post status-publish hentry
    category-footer-design category-sidebar-tips tag-widgets tagged-widgets">
    <h1 class="entry-title">How to build a sidebar widget</h1>
    <div class="entry-content post-how-to-build-a-sidebar">
     <p>Start from the <a href="/guides/widget-areas/">widget areas guide</a> before you code.</p>
     <h2 id="footer-design-tips">Footer design tips</h2>
     <p>A footer needs <a href="/guides/footer-layouts/">a calm layout</a> and few links.</p>
     <div class="wp-block-group sidebar-tips"><p>Keep each
      <a href="/guides/sidebar-width/">sidebar narrow</a>.</p></div>
     <section id="sidebar"><h2>Sidebar</h2>
      <p>Register it with <a href="/reference/register-sidebar/">register_sidebar</a>.</p>
     </section>
    </div>
   </article>
   <div class="nav-links"><a href="/blog/older-post/">Previous post</a></div>
  </div>
 </div>
 <div id="secondary" class="sidebar">
  <div id="recent-posts-2" class="widget widget_recent_entries"><h2 class="widget-title">Recent
   </h2><ul><li><a href="/blog/newer-post/">Newer post</a></li></ul></div>
 </div></div>
 <div id="colophon" class="site-footer"><div class="footer-widgets">
  <a href="/privacy/">Privacy</a></div></div>
</div></body></html>"""


def test_blog_post_with_tag_derived_classes_and_a_real_sidebar() -> None:
    """WordPress markup without HTML5 landmarks: classes from tags, categories, the slug and the
    body's layout classes ("right-sidebar") leave the post's links in content."""
    assert _positions(BLOG_POST, "http://ex.com/blog/how-to-build-a-sidebar-widget/") == [
        ("Widget Works", "header"),
        ("Blog", "navigation"),
        ("widget areas guide", "content"),
        ("a calm layout", "content"),
        ("sidebar narrow", "content"),
        ("register_sidebar", "content"),
        ("Previous post", "navigation"),
        ("Newer post", "aside"),
        ("Privacy", "footer"),
    ]


DOCS_PAGE = """<!doctype html><html><head><title>Sidebar widgets</title></head><body>
<div class="related" role="navigation" aria-label="related navigation"><ul>
 <li class="right"><a href="../genindex.html" title="General Index">index</a></li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper">
 <div class="body" role="main">
  <section id="sidebar-widgets"><h1>Sidebar widgets<a class="headerlink" href="#sidebar-widgets"
   >¶</a></h1>
   <p>Add one with <a class="reference internal" href="api.html#add-widget"><code
    class="xref py">add_widget()</code></a>.</p>
   <section id="footer"><span id="s-footer"></span><h2>Footer</h2>
    <p>The <a class="reference internal" href="layout.html">layout guide</a> covers it.</p>
   </section>
   <section id="navigation-menus"><h2>Navigation menus</h2>
    <p>See <a class="reference internal" href="menus.html">menus</a>.</p>
    <div class="toctree-wrapper compound"><ul>
     <li class="toctree-l1"><a class="reference internal" href="widgets/text.html">Text</a></li>
    </ul></div>
   </section>
  </section>
 </div></div></div>
 <div class="sphinxsidebar"><div class="sphinxsidebarwrapper"><h3>Related Topics</h3>
  <ul><li><a href="../index.html">Documentation overview</a></li></ul></div></div>
</div>
<div class="footer" role="contentinfo">&copy; <a href="../copyright.html">Copyright</a></div>
</body></html>"""


def test_docs_page_heading_ids_are_not_layout_names() -> None:
    """Sphinx: sections take their ids from their headings ("footer", "sidebar-widgets",
    "navigation-menus"); the sidebar and relbar are layout parts."""
    assert _positions(DOCS_PAGE, "http://ex.com/docs/widgets.html") == [
        ("index", "navigation"),
        ("add_widget()", "content"),
        ("layout guide", "content"),
        ("menus", "content"),
        ("Text", "navigation"),  # a toctree is a table of contents, in the body or not
        ("Documentation overview", "aside"),
        ("Copyright", "footer"),
    ]


KB_ARTICLE = """<!doctype html><html><head><title>Sidebar widget not showing</title></head>
<body>
<div id="mainNav" class="navbar"><a href="/">Help Center</a></div>
<div id="contentArea" class="container-fluid"><div class="row-fluid">
 <div id="sidebar" class="span3"><h3>Categories</h3>
  <ul class="categories"><li><a href="/category/widgets/">Widgets</a></li></ul></div>
 <div id="main-content" class="span9"><div class="contentWrapper">
  <div id="fullArticle" class="article label-sidebar label-widgets kb-tag-footer">
   <h1 class="title">Sidebar widget not showing</h1>
   <h2 id="h_01HX-footer-widgets">Footer widgets</h2>
   <p>Footer widgets need <a href="/article/12-footer-widgets">a widget area</a> too.</p>
   <div id="sidebar-widget-not-showing"><p>If it stays hidden, clear the
    <a href="/article/7-cache">page cache</a>.</p></div>
   <div class="callout-sidebar-tip"><p>Read <a href="/article/9-layouts">layouts</a>.</p></div>
  </div>
 </div></div>
</div></div>
<footer><p><a href="/contact/">Contact us</a></p></footer>
</body></html>"""


def test_knowledge_base_article_with_label_classes() -> None:
    """Help Scout-like: labels become classes ("label-widgets"), titles and headings become ids."""
    assert _positions(KB_ARTICLE, "http://ex.com/article/5-sidebar-widget-not-showing") == [
        ("Help Center", "navigation"),
        ("Widgets", "aside"),
        ("a widget area", "content"),
        ("page cache", "content"),
        ("layouts", "content"),
        ("Contact us", "footer"),
    ]


SHOP_PRODUCT = """<!doctype html><html><head><title>Sidebar Widget Pro</title></head>
<body class="product-template-default single single-product woocommerce left-sidebar
 product_tag-sidebar">
<div id="page" class="hfeed site">
 <header id="masthead" class="site-header"><a href="/shop/">Shop</a></header>
 <div id="content" class="site-content"><div id="primary" class="content-area">
  <main id="main" class="site-main">
   <div class="woocommerce-breadcrumb breadcrumb"><a href="/">Home</a></div>
   <div id="product-55" class="product type-product post-55 product_cat-sidebar-widgets
    product_tag-footer product_tag-widgets instock">
    <div class="summary entry-summary"><h1 class="product_title">Sidebar Widget Pro</h1>
     <div class="woocommerce-product-details__short-description"><p>Works with the
      <a href="/product/footer-widget/">Footer Widget</a>.</p></div></div>
    <div class="woocommerce-Tabs-panel woocommerce-Tabs-panel--description panel"
     id="tab-description"><h2>Description</h2>
     <p>Pairs with our <a href="/guides/widget-areas/">widget areas guide</a>.</p></div>
   </div>
  </main>
 </div>
 <div id="secondary" class="widget-area">
  <div class="widget widget_product_categories"><a href="/category/widgets/">Widgets</a></div>
 </div></div>
 <div id="colophon" class="site-footer"><div class="footer-widgets col-2">
  <a href="/shipping/">Shipping</a></div></div>
</div></body></html>"""


def test_shop_product_page_with_product_tag_classes() -> None:
    """WooCommerce-like: product tag and category classes stay content; the widget area is an
    aside even without an <aside> element; the body's "left-sidebar" names no link's place."""
    assert _positions(SHOP_PRODUCT, "http://ex.com/product/sidebar-widget-pro/") == [
        ("Shop", "header"),
        ("Home", "navigation"),
        ("Footer Widget", "content"),
        ("widget areas guide", "content"),
        ("Widgets", "aside"),
        ("Shipping", "footer"),
    ]


def test_structure_wins_over_names() -> None:
    """Landmarks decide before names; the main-content block and its ancestors are never named
    into a layout part, nor is an article, whatever its classes."""
    html = """<html><body><div class="sidebar-layout">
    <main class="sidebar"><p><a href="/a/">in main</a></p></main>
    <div class="footer"><article class="widget"><p><a href="/b/">card</a></p></article></div>
    <aside class="entry-content"><a href="/c/">aside element</a></aside>
    <div role="navigation" class="post-body"><a href="/d/">role nav</a></div>
    </div></body></html>"""
    assert _positions(html) == [
        ("in main", "content"),
        ("card", "footer"),  # a card in a named footer takes the footer's place
        ("aside element", "aside"),
        ("role nav", "navigation"),
    ]


def test_a_lone_article_is_the_main_content_block() -> None:
    """Without <main>, a page's only <article> and its wrappers keep their links in content."""
    html = """<html><body><div id="sidebar-wrapper" class="sidebar-left">
    <article class="tagged-widgets"><p><a href="/a/">body link</a></p></article>
    </div><div id="sidebar"><a href="/b/">side link</a></div></body></html>"""
    assert _positions(html) == [("body link", "content"), ("side link", "aside")]


def test_hidden_heading_does_not_make_a_layout_id_a_heading_anchor() -> None:
    """``<div id="navigation"><h2 class="screen-reader-text">Navigation</h2>`` is a menu; a
    visible "Navigation" heading over an id "navigation" is a section of the text."""
    html = """<html><body>
    <div id="navigation"><h2 class="screen-reader-text">Navigation</h2>
      <ul><li><a href="/a/">Menu item</a></li></ul></div>
    <div id="navigation-2"><h2>Navigation 2</h2><p><a href="/b/">Section link</a></p></div>
    </body></html>"""
    assert _positions(html) == [("Menu item", "navigation"), ("Section link", "content")]
