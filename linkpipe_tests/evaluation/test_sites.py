"""The named evaluation sites, subset copies, the sitemap of a served copy, and the harness's
list of 10 suggestions per source (no model needed)."""

import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

from linkpipe.evaluation import harness
from linkpipe.evaluation.crawl_eval import EVAL_SCORING, linkpipe_rankings
from linkpipe.evaluation.link_removal import content_link_pairs, html_pages
from linkpipe.evaluation.sites import (
    DEBIAN_SITES,
    IKIWIKI,
    EvalSite,
    copy_site,
    ensure_debian_site,
    kept_files,
    sitemap_xml,
)
from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.crawl.runner import run_crawl
from linkpipe.lib.crawl.sitemaps import parse_sitemap
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig
from linkpipe.lib.static_site import serve_site


def _page(title: str, body: str) -> str:
    return (
        f"<html><head><title>{title}</title></head><body><nav><a href='../a/A.html'>A</a></nav>"
        f"<main><h1>{title}</h1><p>{body}</p></main></body></html>"
    )


@pytest.fixture()
def api_site(tmp_path: Path) -> Path:
    """A small javadoc-like tree: two kept packages, a sub-package and class-use pages left out."""
    root = tmp_path / "api"
    files = {
        "pkg/a/A.html": _page("A", "A extends <a href='B.html'>class B</a> and reads "
                                   "<a href='../b/D.html'>the D reader</a>."),
        "pkg/a/B.html": _page("B", "B is sorted by <a href='sub/C.html'>the C sorter</a>."),
        "pkg/a/Hidden.html": _page("Hidden", "No page links here; only the sitemap lists it."),
        "pkg/a/sub/C.html": _page("C", "C sorts <a href='../A.html'>class A</a>."),
        "pkg/a/class-use/A.html": _page("Uses of A", "<a href='../A.html'>class A</a>"),
        "pkg/b/D.html": _page("D", "D reads for <a href='../a/A.html'>class A</a>."),
        "pkg/c/E.html": _page("E", "E."),
        "stylesheet.css": "body {}",
    }  # fmt: skip
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_named_sites_are_five_kinds_each_from_a_debian_package():
    assert set(DEBIAN_SITES) == {"gimp", "django", "sqlite", "javadoc", "ikiwiki"}
    assert len({named.kind for named in DEBIAN_SITES.values()}) == 5
    for named in DEBIAN_SITES.values():
        assert named.package and named.site.root.is_absolute()
    javadoc = DEBIAN_SITES["javadoc"]
    assert javadoc.package == "openjdk-17-doc"
    assert javadoc.site.include == ("java.base/java/util/*.html", "java.base/java/io/*.html")
    assert javadoc.site.start == "java.base/java/util/package-summary.html"
    assert DEBIAN_SITES["sqlite"].site == EvalSite(Path("/usr/share/doc/sqlite3"))
    wiki = DEBIAN_SITES["ikiwiki"]
    assert (wiki.package, wiki.site.root) == ("ikiwiki", IKIWIKI)
    assert wiki.site.include == ("**/*.html",) and wiki.site.start == ""
    assert "examples/**/*.html" in wiki.site.exclude and "sitemap.html" in wiki.site.exclude
    assert harness.DEBIAN_SITES is DEBIAN_SITES


def test_names_and_folders_give_eval_sites(api_site, monkeypatch):
    named = DEBIAN_SITES["javadoc"]
    installed = named.__class__(named.package, named.kind, EvalSite(api_site, ("pkg/a/*.html",)))
    monkeypatch.setitem(DEBIAN_SITES, "javadoc", installed)
    logged: list[str] = []
    # the folder exists: nothing is installed, the registered subset comes back
    assert ensure_debian_site("javadoc", logged.append) == installed.site
    assert harness.eval_site_of("javadoc") == installed.site and logged == []
    assert harness.site_root_of("javadoc") == api_site
    assert harness.eval_site_of(str(api_site)) == EvalSite(api_site)
    with pytest.raises(FileNotFoundError):
        harness.eval_site_of(str(api_site / "missing"))


def test_subset_copy_keeps_the_packages_and_lists_its_pages_in_a_sitemap(api_site, tmp_path):
    site = EvalSite(api_site, ("pkg/a/*.html", "pkg/b/*.html"), start="pkg/a/A.html")
    kept = ["pkg/a/A.html", "pkg/a/B.html", "pkg/a/Hidden.html", "pkg/b/D.html"]
    assert kept_files(site) == kept  # no sub-package, no class-use page, no other package
    copy = copy_site(site, tmp_path / "copy")
    assert html_pages(copy) == set(kept)
    assert sorted(p.name for p in copy.iterdir()) == ["pkg", "sitemap.xml"]
    sitemap = parse_sitemap((copy / "sitemap.xml").read_bytes())
    assert [e.loc for e in sitemap.urls] == [f"__BASE_URL__/{p}" for p in kept]
    # links to pages outside the subset are not content links of the copy
    assert content_link_pairs(copy) == {
        ("pkg/a/A.html", "pkg/a/B.html"),
        ("pkg/a/A.html", "pkg/b/D.html"),
        ("pkg/b/D.html", "pkg/a/A.html"),
    }
    with (
        serve_site(copy) as served,
        urllib.request.urlopen(served.base_url + "/sitemap.xml", timeout=5) as response,
    ):
        body = response.read()
    served_urls = [e.loc for e in parse_sitemap(body).urls]
    assert served_urls == [f"{served.base_url}/{p}" for p in kept]


def test_a_whole_site_copy_gets_a_sitemap_and_keeps_its_own(api_site, tmp_path):
    whole = copy_site(api_site, tmp_path / "whole")
    assert (whole / "stylesheet.css").is_file() and (whole / "pkg/c/E.html").is_file()
    locs = [e.loc for e in parse_sitemap((whole / "sitemap.xml").read_bytes()).urls]
    assert len(locs) == 7 and "__BASE_URL__/pkg/a/class-use/A.html" in locs
    (api_site / "sitemap.xml").write_text("<urlset></urlset>", encoding="utf-8")
    again = copy_site(EvalSite(api_site), tmp_path / "again")
    assert (again / "sitemap.xml").read_text(encoding="utf-8") == "<urlset></urlset>"
    xml = sitemap_xml(["b c.html", "a&b.html", "dir/index.html"])
    assert [e.loc for e in parse_sitemap(xml.encode()).urls] == [
        "__BASE_URL__/a%26b.html",
        "__BASE_URL__/b%20c.html",
        "__BASE_URL__/dir/index.html",
    ]


def test_exclude_patterns_leave_kept_files_out(api_site, tmp_path):
    site = EvalSite(api_site, ("pkg/**/*.html",), exclude=("pkg/a/class-use/*.html", "pkg/c/*"))
    kept = ["pkg/a/A.html", "pkg/a/B.html", "pkg/a/Hidden.html", "pkg/a/sub/C.html",
            "pkg/b/D.html"]  # fmt: skip
    assert kept_files(site) == kept
    copy = copy_site(site, tmp_path / "copy")
    assert html_pages(copy) == set(kept) and not (copy / "pkg/c").exists()
    locs = [e.loc for e in parse_sitemap((copy / "sitemap.xml").read_bytes()).urls]
    assert locs == [f"__BASE_URL__/{p}" for p in kept]
    with pytest.raises(ValueError, match="need include"):
        EvalSite(api_site, exclude=("pkg/c/*",))


def test_prepare_copy_removes_links_inside_the_subset_only(api_site, tmp_path):
    site = EvalSite(api_site, ("pkg/a/*.html", "pkg/b/*.html"), start="pkg/a/A.html")
    removed, pages, still_linked = harness.prepare_copy(site, tmp_path / "copy", 1.0, 0)
    assert len(pages) == 4
    assert {(r.source, r.target, r.text) for r in removed} == {
        ("pkg/a/A.html", "pkg/a/B.html", "class B"),
        ("pkg/a/A.html", "pkg/b/D.html", "the D reader"),
        ("pkg/b/D.html", "pkg/a/A.html", "class A"),
    }
    assert still_linked == set()
    text = (tmp_path / "copy/pkg/a/B.html").read_text(encoding="utf-8")
    assert "<a href='sub/C.html'>the C sorter</a>" in text  # outside the subset: kept as is


def test_the_crawler_reaches_a_page_only_the_sitemap_lists(api_site, tmp_path):
    site = EvalSite(api_site, ("pkg/a/*.html", "pkg/b/*.html"), start="pkg/a/A.html")
    copy = copy_site(site, tmp_path / "copy")
    with serve_site(copy) as served:
        config = CrawlConfig(f"{served.base_url}/{site.start}", max_pages=20, total_time_s=60)
        result = run_crawl(config, tmp_path / "crawl")
    pages = {p.url.removeprefix(served.base_url + "/"): p for p in result.iter_pages()}
    hidden = pages["pkg/a/Hidden.html"]
    assert hidden.status == 200 and hidden.in_sitemap and hidden.title == "Hidden"
    assert pages["pkg/a/A.html"].in_sitemap and pages["pkg/a/A.html"].depth == 0
    assert pages["pkg/a/sub/C.html"].status == 404  # linked, outside the subset


def _candidate(source: str, target: str, sim: float) -> CandidatePair:
    return CandidatePair(
        source, target, sim, 0.3, 0.0, 0.0, None, None, None, 0.0, 0.0, False, False
    )


def test_the_harness_ranks_ten_suggestions_per_source_and_the_product_five():
    targets = [f"/t{i}" for i in range(12)]
    facts = {u: PageFacts(title=u) for u in ["/s", *targets]}
    candidates = [_candidate("/s", t, 0.8 - 0.01 * i) for i, t in enumerate(targets)]
    ranked = linkpipe_rankings(candidates, facts)
    assert [t for t, _ in ranked["/s"]] == targets[:10]
    assert (EVAL_SCORING.max_per_source, ScoringConfig().max_per_source) == (10, 5)
    product = linkpipe_rankings(candidates, facts, ScoringConfig())
    assert [t for t, _ in product["/s"]] == targets[:5]


@pytest.mark.skipif(not IKIWIKI.is_dir(), reason="the ikiwiki package is not installed")
def test_the_wiki_copy_keeps_its_pages_lists_them_and_links_content_only(tmp_path):
    site = DEBIAN_SITES["ikiwiki"].site
    copy = copy_site(site, tmp_path / "wiki")
    pages = html_pages(copy)
    assert pages == set(kept_files(site)) and 400 <= len(pages) <= 800
    assert {"index.html", "plugins.html", "plugins/toc.html", "tips/nginx.html",
            "ikiwiki/directive/toc.html", "news/openid.html"} <= pages  # fmt: skip
    left_out = {"sitemap.html", "recentchanges.html", "test_page_space_allowed.html",
                "plugins/brokenlinks.html", "examples/blog/posts/first_post.html"}  # fmt: skip
    assert not left_out & pages and not any(p.startswith("examples/") for p in pages)
    assert (IKIWIKI / "examples/blog/posts/first_post.html").is_file()  # in the package
    locs = [e.loc for e in parse_sitemap((copy / "sitemap.xml").read_bytes()).urls]
    assert locs == [
        f"__BASE_URL__/{quote(p, safe='/:')}" for p in sorted(pages)
    ]  # as the pages link them
    pairs = content_link_pairs(copy, pages)
    # the page text links the plugin to its directive; parent links (header) and backlinks
    # (footer) are not content: DreamHost's page links only outside the wiki in its text
    assert ("plugins/toc.html", "ikiwiki/directive/toc.html") in pairs
    assert ("plugins/toc.html", "tips/html5.html") not in pairs  # a backlink in the footer
    dreamhost = (copy / "tips/DreamHost.html").read_text(encoding="utf-8")
    assert 'href="../tips.html"' in dreamhost and 'href="../install.html"' in dreamhost
    assert not any(source == "tips/DreamHost.html" for source, _ in pairs)
    assert all(s in pages and t in pages and s != t for s, t in pairs)
    colon = "tips/JavaScript_to_add_index.html_to_file:_links.html"
    with (
        serve_site(copy) as served,
        urllib.request.urlopen(f"{served.base_url}/{quote(colon)}", timeout=5) as response,
    ):
        assert response.status == 200 and b"<title>" in response.read()
