"""URL normalization and classification shared by the crawler, the importers and the pipeline.

A normalized URL is the identity of a page in every table: absolute, no fragment, lower-case scheme
and host, no default port, dot segments resolved, tracking parameters removed, remaining query
parameters sorted, percent-encoding in one canonical form (unreserved characters decoded, escapes
upper-case, anything unsafe encoded as UTF-8).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Literal
from urllib.parse import urljoin, urlsplit, urlunsplit

TrailingSlash = Literal["keep", "add", "strip"]

# Names are compared lower-case; an entry ending in "*" is a prefix.
DEFAULT_STRIP_PARAMS: frozenset[str] = frozenset(
    {
        "utm_*",
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "fbclid",
        "msclkid",
        "yclid",
        "twclid",
        "ttclid",
        "li_fat_id",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "phpsessid",
        "jsessionid",
    }
)

CRAWLABLE_SCHEMES = frozenset({"http", "https"})
DEFAULT_PORTS = {"http": 80, "https": 443}

_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_LEADING_JUNK_RE = re.compile(r"^[\x00-\x20]+|[\x00-\x20]+$")
_TAB_NL_RE = re.compile(r"[\t\n\r]")
_PCT_RE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Characters left as they are (besides "%" escapes); everything else is percent-encoded.
_PATH_SAFE = frozenset(_UNRESERVED | set("!$&'()*+,;=:@/"))
_QUERY_SAFE = frozenset(_UNRESERVED | set("!$'()*+,;:@/?="))  # "&" and "=" handled by split
_SESSION_IN_PATH_RE = re.compile(r";(jsessionid|phpsessid|sid)=[^/?#]*", re.IGNORECASE)
_DIGITS_RE = re.compile(r"\d+")
_PORT_SUFFIX_RE = re.compile(r":\d+$")
_ID_SEGMENT_RE = re.compile(
    r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?=[^/]*\d)[0-9a-f]{12,})$",
    re.IGNORECASE,
)


def _fix_escape(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else "%" + match.group(1).upper()


def _encode_part(text: str, safe: frozenset[str]) -> str:
    """Canonical percent-encoding of one URL component (existing escapes kept, normalized)."""
    if "%" in text:
        text = _PCT_RE.sub(_fix_escape, text)
    elif all(c in safe for c in text):
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in safe:
            out.append(c)
        elif c == "%" and _PCT_RE.match(text, i):
            out.append(text[i : i + 3])
            i += 3
            continue
        else:
            out.extend(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    if "." not in path:
        return path
    segments = path.split("/")
    out: list[str] = []
    for seg in segments:
        if seg == ".":
            continue
        if seg == "..":
            if len(out) > 1:
                out.pop()
            continue
        out.append(seg)
    if segments[-1] in (".", ".."):
        out.append("")
    result = "/".join(out)
    return result if result.startswith("/") else "/" + result


def _param_stripped(name: str, strip_params: Collection[str]) -> bool:
    lowered = name.lower()
    if lowered in strip_params:
        return True
    return any(p.endswith("*") and lowered.startswith(p[:-1]) for p in strip_params)


def _normalize_query(query: str, strip_params: Collection[str]) -> str:
    if not query:
        return ""
    pairs: list[tuple[str, str]] = []
    for part in query.split("&"):
        if not part:
            continue
        name, sep, value = part.partition("=")
        name = _encode_part(name.replace("+", " "), _QUERY_SAFE).replace("%20", "+")
        if strip_params and _param_stripped(name, strip_params):
            continue
        value = _encode_part(value.replace("+", " "), _QUERY_SAFE).replace("%20", "+")
        pairs.append((name, sep + value))
    pairs.sort()
    return "&".join(name + value for name, value in pairs)


def _normalize_host(host: str) -> str:
    host = host.strip().rstrip(".").lower()
    if host and not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            host = _encode_part(host, _UNRESERVED)
    return host


def _apply_trailing_slash(path: str, trailing_slash: TrailingSlash) -> str:
    if trailing_slash == "add" and not path.endswith("/"):
        last = path.rsplit("/", 1)[-1]
        if "." not in last:
            return path + "/"
    elif trailing_slash == "strip" and len(path) > 1 and path.endswith("/"):
        return path.rstrip("/") or "/"
    return path


def normalize_url(
    url: str,
    base: str | None = None,
    *,
    trailing_slash: TrailingSlash = "keep",
    strip_params: Collection[str] = DEFAULT_STRIP_PARAMS,
) -> str:
    """Absolute, canonical form of ``url`` (resolved against ``base`` when given).

    Non-http(s) URLs are returned resolved but otherwise untouched. Raises ``ValueError`` for URLs
    that cannot be parsed (e.g. a bad port).
    """
    url = _TAB_NL_RE.sub("", _LEADING_JUNK_RE.sub("", url))
    if base:
        url = urljoin(base, url)
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in CRAWLABLE_SCHEMES:
        return url
    host = _normalize_host(parts.hostname or "")
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or port == DEFAULT_PORTS[scheme] else f"{host}:{port}"
    if parts.username:
        userinfo = parts.username + (f":{parts.password}" if parts.password else "")
        netloc = f"{userinfo}@{netloc}"
    path = _SESSION_IN_PATH_RE.sub("", parts.path) if ";" in parts.path else parts.path
    path = _remove_dot_segments(_encode_part(path, _PATH_SAFE)) or "/"
    path = _apply_trailing_slash(path, trailing_slash)
    query = _normalize_query(parts.query, strip_params)
    return urlunsplit((scheme, netloc, path, query, ""))


@lru_cache(maxsize=200_000)
def cached_normalize(
    url: str, base: str | None, trailing_slash: TrailingSlash, strip_params: frozenset[str]
) -> str:
    """Memoized :func:`normalize_url` for hot loops (``strip_params`` must be a frozenset)."""
    return normalize_url(url, base, trailing_slash=trailing_slash, strip_params=strip_params)


def url_scheme(href: str) -> str:
    """The lower-cased scheme of ``href`` ("" for a relative reference)."""
    match = _SCHEME_RE.match(_TAB_NL_RE.sub("", href.lstrip("\x00\x20\t\n\r\f")))
    return match.group(1).lower() if match else ""


def is_crawlable_scheme(href: str) -> bool:
    """True for http(s) URLs and relative references; False for mailto:, javascript:, tel:..."""
    scheme = url_scheme(href)
    return scheme == "" or scheme in CRAWLABLE_SCHEMES


def url_host(url: str) -> str:
    """``host[:port]`` of a normalized URL (lower-case)."""
    return urlsplit(url).netloc.rsplit("@", 1)[-1].lower()


def same_site(url: str, hosts: Iterable[str], allow_subdomains: bool = False) -> bool:
    """Whether ``url`` is on one of ``hosts``.

    A host entry with a port (``127.0.0.1:8000``) matches only that port; one without a port
    matches any port. With ``allow_subdomains``, ``blog.example.com`` matches ``example.com``.
    """
    parts = urlsplit(url)
    if parts.scheme.lower() not in CRAWLABLE_SCHEMES:
        return False
    hostname = (parts.hostname or "").rstrip(".")
    try:
        port = parts.port
    except ValueError:
        return False
    netloc = (
        hostname if port in (None, DEFAULT_PORTS[parts.scheme.lower()]) else f"{hostname}:{port}"
    )
    for entry in hosts:
        entry = entry.lower()
        # an entry with a port matches host:port; one without matches the host on any port
        candidate = netloc if _PORT_SUFFIX_RE.search(entry) else hostname
        if candidate == entry or (allow_subdomains and candidate.endswith("." + entry)):
            return True
    return False


def _segment_pattern(segment: str) -> str:
    if not segment:
        return segment
    if segment.isdigit():
        return "{n}"
    if _ID_SEGMENT_RE.match(segment):
        return "{id}"
    return _DIGITS_RE.sub("{n}", segment)


def url_pattern(url: str) -> str:
    """A key grouping URLs that differ only by numbers/ids and parameter values.

    ``/calendar/2024/05/?month=6&year=2024`` -> ``/calendar/{n}/{n}/?month&year``.
    """
    parts = urlsplit(url)
    path = "/".join(_segment_pattern(s) for s in (parts.path or "/").split("/"))
    if not parts.query:
        return path
    names = sorted({p.partition("=")[0] for p in parts.query.split("&") if p})
    return f"{path}?{'&'.join(names)}"


def has_repeating_segments(url: str, min_repeats: int = 3) -> bool:
    """True when one path segment occurs ``min_repeats`` times (``/a/b/a/b/a/b/``): a trap sign."""
    segments = [s for s in urlsplit(url).path.split("/") if s]
    if len(segments) < min_repeats:
        return False
    counts: dict[str, int] = {}
    for seg in segments:
        counts[seg] = counts.get(seg, 0) + 1
        if counts[seg] >= min_repeats:
            return True
    return False


def has_query(url: str) -> bool:
    """Whether the URL carries a query string."""
    return bool(urlsplit(url).query)


def http_url_problem(url: str) -> str | None:
    """Why ``url`` is not an absolute http(s) URL with a host (a few words), None when it is."""
    if not url.strip():
        return "empty"
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        return "contains spaces or control characters"
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # e.g. "Invalid IPv6 URL"
        return str(exc)
    if parts.scheme.lower() not in CRAWLABLE_SCHEMES:
        if not parts.scheme or "://" not in url:
            return "not a URL (expected http:// or https:// and a host)"
        return f"scheme {parts.scheme!r} is not http or https"
    if not parts.hostname:
        return "no host"
    if "@" in parts.netloc:
        return "user name or password in the URL (crawl the site without them)"
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return "bad port"
    return None
