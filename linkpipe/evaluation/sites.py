"""The sites `linkpipe eval` knows by name, and the served copy of a site.

Each named site is a Debian documentation package (installed with apt-get when missing), one
kind of site each:

* ``gimp``: GIMP help, a prose user manual (DocBook), every page.
* ``django``: Django documentation, framework docs (Sphinx), every page.
* ``sqlite``: the SQLite website as shipped in ``sqlite3-doc``: FAQ, articles, how-tos, the
  release-notes archive, the C API and SQL references, every page.
* ``javadoc``: the Java SE 17 API reference (javadoc, ``openjdk-17-doc``), the packages
  ``java.util`` and ``java.io`` only (their class, interface and package pages, not their
  sub-packages or ``class-use`` pages): the whole reference has 10,000+ pages.
* ``ikiwiki``: a wiki, ikiwiki's own documentation wiki as rendered in ``ikiwiki`` (plugin pages,
  tips, directives, news, the wiki's front pages; its bugs, forum and todo sections are not
  shipped), every page but the bundled example sites (``examples/``) and the wiki's whole-site
  generated pages: the site map, recent changes, the broken-links report
  (``plugins/brokenlinks.html``) and a test page; 444 of its 468 pages.

A site is an :class:`EvalSite`: its folder, the pages kept (``Path.glob`` patterns relative to the
folder; every file when there are none), those left out of them after all and the page the crawl
starts from. Its copy (see :func:`copy_site`) holds the kept files and a ``sitemap.xml`` listing
every HTML page of the copy (written unless the site has one), with ``__BASE_URL__`` URLs that the
loopback server fills in.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote
from xml.sax.saxutils import escape

from linkpipe.evaluation.link_removal import BASE_URL_PLACEHOLDER, html_pages

Log = Callable[[str], None]

JAVADOC = Path("/usr/share/doc/openjdk-17-jre-headless/api")
IKIWIKI = Path("/usr/share/doc/ikiwiki/html")


@dataclass(frozen=True)
class EvalSite:
    """A static site to evaluate on: its folder, the files kept (glob patterns relative to the
    folder, all files when empty), the page path the crawl starts from ("": the root) and the
    kept files left out after all (glob patterns; only with ``include``)."""

    root: Path
    include: tuple[str, ...] = ()
    start: str = ""
    exclude: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.exclude and not self.include:
            raise ValueError("an EvalSite's exclude patterns need include patterns")


@dataclass(frozen=True)
class DebianSite:
    """A named evaluation site: the Debian package that installs it, what kind of site it is
    and the site itself."""

    package: str
    kind: str
    site: EvalSite


DEBIAN_SITES: dict[str, DebianSite] = {
    "gimp": DebianSite(
        "gimp-help-en", "prose user manual (DocBook)", EvalSite(Path("/usr/share/gimp/2.0/help/en"))
    ),
    "django": DebianSite(
        "python-django-doc",
        "framework documentation (Sphinx)",
        EvalSite(Path("/usr/share/doc/python-django-doc/html")),
    ),
    "sqlite": DebianSite(
        "sqlite3-doc",
        "project website: FAQ, articles, release notes, C and SQL reference",
        EvalSite(Path("/usr/share/doc/sqlite3")),
    ),
    "javadoc": DebianSite(
        "openjdk-17-doc",
        "API reference (javadoc): java.util and java.io of Java SE 17",
        EvalSite(
            JAVADOC,
            include=("java.base/java/util/*.html", "java.base/java/io/*.html"),
            start="java.base/java/util/package-summary.html",
        ),
    ),
    "ikiwiki": DebianSite(
        "ikiwiki",
        "wiki: ikiwiki's documentation wiki (plugins, tips, directives, news)",
        EvalSite(
            IKIWIKI,
            include=("**/*.html",),
            exclude=(
                "examples/**/*.html",
                "sitemap.html",
                "recentchanges.html",
                "test_page_space_allowed.html",
                "plugins/brokenlinks.html",
            ),
        ),
    ),
}


def ensure_debian_site(name: str, log: Log) -> EvalSite:
    """The named site of :data:`DEBIAN_SITES`, its package installed if its folder is missing."""
    named = DEBIAN_SITES[name]
    folder = named.site.root
    if folder.is_dir():
        return named.site
    install = ["apt-get", "install", "-y", "--no-install-recommends", named.package]
    log(f"installing {named.package} ...")
    if subprocess.run(install, check=False).returncode != 0:
        subprocess.run(["apt-get", "update"], check=True)
        subprocess.run(install, check=True)
    if not folder.is_dir():
        raise FileNotFoundError(f"{named.package} is installed but {folder} is missing")
    return named.site


def _matching_files(root: Path, patterns: Iterable[str]) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for pattern in patterns
        for p in root.glob(pattern)
        if p.is_file()
    }


def kept_files(site: EvalSite) -> list[str]:
    """Relative POSIX paths of the files a subset site keeps (matched by an include pattern and
    by no exclude pattern), sorted ([] when it keeps all)."""
    found = _matching_files(site.root, site.include)
    return sorted(found - _matching_files(site.root, site.exclude))


def copy_site(site: EvalSite | Path, dest: Path) -> Path:
    """Copy a site's kept files to ``dest`` (symlinks followed: Debian packages link shared
    files) and write its sitemap."""
    site = site if isinstance(site, EvalSite) else EvalSite(Path(site))
    if not site.include:
        shutil.copytree(site.root, dest, symlinks=False, ignore_dangling_symlinks=True)
    else:
        for rel in kept_files(site):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(site.root / rel, dest / rel)
        dest.mkdir(parents=True, exist_ok=True)
    if not (dest / "sitemap.xml").exists():
        write_sitemap(dest, html_pages(dest))
    return dest


def sitemap_xml(pages: Iterable[str]) -> str:
    """A sitemap of page paths, each as ``__BASE_URL__/<path>`` (the file as the site links it,
    ``dir/index.html`` included), sorted."""
    locs = [f"{BASE_URL_PLACEHOLDER}/{quote(p, safe='/:')}" for p in sorted(pages)]  # as linked
    body = "".join(f"  <url><loc>{escape(loc)}</loc></url>\n" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{body}</urlset>\n"
    )


def write_sitemap(root: Path, pages: Iterable[str]) -> Path:
    """Write ``sitemap.xml`` listing ``pages`` at the root of a copy; its path."""
    path = root / "sitemap.xml"
    path.write_text(sitemap_xml(pages), encoding="utf-8")
    return path
