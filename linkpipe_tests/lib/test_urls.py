"""URL normalization, scheme filtering, site scope and trap patterns."""

from __future__ import annotations

import pytest

from linkpipe.lib.urls import (
    has_query,
    has_repeating_segments,
    is_crawlable_scheme,
    normalize_url,
    same_site,
    url_pattern,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Example.COM:80/a/./b/../c?b=2&a=1#frag", "http://example.com/a/c?a=1&b=2"),
        ("https://example.com:443", "https://example.com/"),
        ("http://example.com:8080/x", "http://example.com:8080/x"),
        (
            "http://example.com/?utm_source=x&utm_medium=y&gclid=1&fbclid=2&msclkid=3&id=7",
            "http://example.com/?id=7",
        ),
        ("http://example.com/?gclid=1", "http://example.com/"),
        ("http://example.com/%7euser/%41%2f%2F", "http://example.com/~user/A%2F%2F"),
        ("http://example.com/caf\u00e9 menu", "http://example.com/caf%C3%A9%20menu"),
        ("http://example.com/caf%c3%a9", "http://example.com/caf%C3%A9"),
        ("http://example.com/?q=a+b&q=%41", "http://example.com/?q=A&q=a+b"),
        ("http://example.com/x;jsessionid=ABC123?y=1", "http://example.com/x?y=1"),
        ("http://b\u00fccher.de/", "http://xn--bcher-kva.de/"),
        ("  http://example.com/a\n  ", "http://example.com/a"),
    ],
)
def test_normalize_url(url: str, expected: str) -> None:
    assert normalize_url(url) == expected


def test_normalize_resolves_relative_and_trailing_slash_modes() -> None:
    assert normalize_url("../x", "http://a.com/b/c/d") == "http://a.com/b/x"
    assert normalize_url("//cdn.a.com/y", "https://a.com/") == "https://cdn.a.com/y"
    assert normalize_url("?p=2", "http://a.com/list/") == "http://a.com/list/?p=2"
    assert normalize_url("/blog", "http://a.com/", trailing_slash="add") == "http://a.com/blog/"
    assert (
        normalize_url("/file.pdf", "http://a.com/", trailing_slash="add") == "http://a.com/file.pdf"
    )
    assert normalize_url("/blog/", "http://a.com/", trailing_slash="strip") == "http://a.com/blog"
    assert normalize_url("/", "http://a.com/", trailing_slash="strip") == "http://a.com/"
    assert normalize_url("/blog/", "http://a.com/") == "http://a.com/blog/"


def test_custom_strip_params() -> None:
    url = "http://a.com/?sessionid=1&ref=x&utm_campaign=c"
    assert normalize_url(url, strip_params={"sessionid", "ref"}) == "http://a.com/?utm_campaign=c"
    assert normalize_url(url, strip_params=()) == "http://a.com/?ref=x&sessionid=1&utm_campaign=c"


def test_normalize_rejects_bad_port() -> None:
    with pytest.raises(ValueError):
        normalize_url("http://a.com:99999/")


@pytest.mark.parametrize(
    ("href", "crawlable"),
    [
        ("mailto:a@b.c", False),
        ("javascript:void(0)", False),
        (" JavaScript:alert(1)", False),
        ("java\nscript:x", False),
        ("tel:+1", False),
        ("data:text/html,hi", False),
        ("file:///etc/passwd", False),
        ("ftp://a.com/", False),
        ("/relative", True),
        ("page.html", True),
        ("?q=1", True),
        ("HTTPS://a.com/", True),
        ("http://a.com/", True),
    ],
)
def test_is_crawlable_scheme(href: str, crawlable: bool) -> None:
    assert is_crawlable_scheme(href) is crawlable


def test_same_site() -> None:
    assert same_site("http://127.0.0.1:8000/x", {"127.0.0.1:8000"})
    assert not same_site("http://127.0.0.1:9000/x", {"127.0.0.1:8000"})
    assert same_site("https://example.com:8443/", {"example.com"})  # no port in the entry: any port
    assert not same_site("http://blog.example.com/", {"example.com"})
    assert same_site("http://blog.example.com/", {"example.com"}, allow_subdomains=True)
    assert not same_site("http://badexample.com/", {"example.com"}, allow_subdomains=True)
    assert not same_site("mailto:x@example.com", {"example.com"})


def test_url_pattern_and_traps() -> None:
    assert (
        url_pattern("http://a.com/calendar/2024/05/?month=6&year=2024")
        == "/calendar/{n}/{n}/?month&year"
    )
    assert (
        url_pattern("http://a.com/calendar/2031/12/?year=1&month=2")
        == "/calendar/{n}/{n}/?month&year"
    )
    assert url_pattern("http://a.com/page-2/d41d8cd98f00b204e9800998ecf8427e") == "/page-{n}/{id}"
    assert url_pattern("http://a.com/blog/my-post/") == "/blog/my-post/"
    assert has_repeating_segments("http://a.com/a/b/a/b/a/b/")
    assert not has_repeating_segments("http://a.com/a/b/c/")
    assert has_query("http://a.com/?x=1") and not has_query("http://a.com/x")
