"""Main content with trafilatura, kept as text with block, sentence and in-text link offsets.

``main_text`` joins the extracted blocks (headings, paragraphs, list items, quotes, table cells)
with blank lines. Every offset stored anywhere in linkpipe indexes into this exact string.

A line break (``<br>``) inside a block is one newline in ``main_text`` and always ends a
sentence: lines such as an infobox's ("Plugin: rename<br/>Author: Joey<br/>...") are not one
sentence, so no anchor (which stays inside its sentence) runs across them. Whitespace of the
HTML source is never a newline: every other run of whitespace is one space.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from lxml import etree

BLOCK_KINDS = {
    "head": "heading",
    "p": "paragraph",
    "item": "item",
    "quote": "quote",
    "cell": "cell",
}
# A <pre> block that trafilatura keeps as a quote (a code listing, a command synopsis): in the
# main text like any block, but no place for an anchor (see anchors.LINKABLE_BLOCKS).
PREFORMATTED = "preformatted"
PRE_PART_CHARS = 40  # a shorter quote found inside a <pre> may be a quotation of its own
# Sentence ends: ., ! or ? (optionally closed by a quote/bracket) followed by space and a capital,
# digit or quote; common abbreviations are protected below.
SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+(?=[A-Z0-9\"'\u201c\u2018(\[])")
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "Mr.", "Mrs.", "Dr.", "St.", "Fig.", "No.")


@dataclass
class TextBlock:
    """One block of main text: ``main_text[start:end]``."""

    kind: str
    start: int
    end: int


@dataclass
class Sentence:
    """One sentence of a block: ``main_text[start:end]``."""

    paragraph_idx: int
    sentence_idx: int
    block_kind: str
    start: int
    end: int
    text: str


@dataclass
class TextLink:
    """An existing link inside the main text: ``main_text[start:end]`` is its anchor."""

    target_url: str
    start: int
    end: int
    anchor_text: str


@dataclass
class MainContent:
    """Everything the later stages need from one page's main content."""

    text: str = ""
    blocks: list[TextBlock] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)
    links: list[TextLink] = field(default_factory=list)
    error: str = ""


# Elements whose text must not run into the words around them. trafilatura drops the space
# before <code> ("Creates a new<code>FileReader</code>") and nests blocks in table-like
# layouts (a heading, then cells) with nothing between them.
SEPARATED = {*BLOCK_KINDS, "list", "row", "table", "code"}


GLUE_AFTER = "([{<\"'\u2018\u201c/#@-_"  # after these a word may follow without a space


def _gap(out: list[str], following: str | None) -> None:
    """A space between the text so far and ``following`` when a word would run into what
    precedes it ("a new" + "FileReader", "file)" + "FileReader", "charset." + "Creates")."""
    last = out[-1][-1:] if out else ""
    if last and following and following[0].isalnum() and not last.isspace():
        out.extend([] if last in GLUE_AFTER else [" "])


def _first_text(elem: etree._Element) -> str:
    """The first characters of an element's text content ("" if none)."""
    for text in elem.itertext():
        if text:
            return str(text)
    return ""


def _flatten(
    elem: etree._Element,
    out: list[str],
    links: list[tuple[str, int, int]],
    breaks: list[int],
) -> None:
    """Append the text of ``elem`` to ``out``, recording <ref> spans in ``links`` and the
    offset of each line break (<lb>, trafilatura's <br>) in ``breaks``."""
    if elem.text:
        out.append(elem.text)
    for child in elem:
        if child.tag == "ref":
            start = sum(len(s) for s in out)
            _flatten(child, out, links, breaks)
            end = sum(len(s) for s in out)
            links.append((child.get("target") or "", start, end))
        elif child.tag == "lb":
            breaks.append(sum(len(s) for s in out))
            out.append(" ")
        else:
            if child.tag in SEPARATED:
                _gap(out, _first_text(child))
            _flatten(child, out, links, breaks)
            if child.tag in SEPARATED:
                _gap(out, child.tail)
        if child.tail:
            out.append(child.tail)


def _normalise_space(
    text: str, spans: list[tuple[str, int, int]], breaks: Iterable[int] = ()
) -> tuple[str, list[tuple[str, int, int]]]:
    """Collapse whitespace while remapping span offsets: each run of whitespace is one space,
    or one newline when it holds a line break (``breaks``: offsets in ``text``)."""
    at_break = set(breaks)
    mapping: list[int] = []
    chars: list[str] = []
    prev_space = True
    for i, ch in enumerate(text):
        if ch.isspace():
            if not prev_space:
                chars.append(" ")
            if i in at_break and chars:
                chars[-1] = "\n"  # the run's one character (a leading run has none)
            mapping.append(len(chars))
            prev_space = True
            continue
        mapping.append(len(chars))
        chars.append(ch)
        prev_space = False
    mapping.append(len(chars))
    out = "".join(chars)
    stripped = out.rstrip()
    new_spans: list[tuple[str, int, int]] = []
    for target, s, e in spans:
        ns, ne = mapping[s], min(mapping[e], len(stripped))
        while ns < ne and stripped[ns].isspace():
            ns += 1
        while ne > ns and stripped[ne - 1].isspace():
            ne -= 1
        if ne > ns:
            new_spans.append((target, ns, ne))
    return stripped, new_spans


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of one block of text; a newline (a line break of
    the page, see :func:`_normalise_space`) always ends a sentence."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        spans += [(offset + s, offset + e) for s, e in _line_sentences(line)]
        offset += len(line) + 1
    return spans


def _line_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of one line of a block."""
    protected = text
    for abbr in ABBREVIATIONS:
        protected = protected.replace(abbr, abbr.replace(".", "\0"))
    spans = []
    start = 0
    for match in SENTENCE_END_RE.finditer(protected):
        end = match.start()
        if text[start:end].strip():
            spans.append((start, end))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text.rstrip())))
    return spans


class PreformattedTexts:
    """Whether a block's text is the text of one of the page's <pre> elements (trafilatura
    turns a <pre> it does not take for code into a quote, as it does a <blockquote>). The page
    is parsed for them only when first asked (a page with a quote block)."""

    def __init__(self, html: str) -> None:
        self.html = html
        self.texts: list[str] | None = None

    def __call__(self, text: str) -> bool:
        """Whether ``text`` is the text of a <pre> or comes from one: its first and last
        :data:`PRE_PART_CHARS` characters are in the same <pre> (trafilatura leaves bits of a
        long listing out, or cuts it in parts). Whitespace does not count: the main text puts
        a space between a <pre>'s inline elements ("name :hostvar" is "name : hostvar")."""
        if self.texts is None:
            self.texts = _pre_texts(self.html)
        chars = "".join(text.split())
        if len(chars) < PRE_PART_CHARS:
            return bool(chars) and chars in self.texts
        head, tail = chars[:PRE_PART_CHARS], chars[-PRE_PART_CHARS:]
        return any(head in pre and tail in pre for pre in self.texts)


def _pre_texts(html: str) -> list[str]:
    """The text of every <pre> element of ``html`` without its whitespace ([] if unparsable)."""
    try:
        parser = etree.HTMLParser(encoding="utf-8")  # the text is decoded: not its <meta>'s
        root = etree.fromstring(html.encode("utf-8", "replace"), parser)
    except (etree.LxmlError, ValueError):
        return []
    if root is None:
        return []
    return ["".join("".join(pre.itertext()).split()) for pre in root.iter("pre")]


def extract_main_content(html: str, url: str = "", fast: bool = False) -> MainContent:
    """Main content of a page, boilerplate removed, with offsets (never raises on bad HTML)."""
    if not html or not html.strip():
        return MainContent(error="empty document")
    import trafilatura  # ~0.3 CPU-s to import: a refresh with no page to extract never does

    try:
        doc = trafilatura.bare_extraction(
            html,
            url=url or None,
            include_links=True,
            include_formatting=False,
            include_tables=True,
            include_comments=False,
            fast=fast,
            with_metadata=False,
        )
    except Exception as exc:  # noqa: BLE001 - a broken page must not stop the stage
        return MainContent(error=f"extraction failed: {type(exc).__name__}")
    body = getattr(doc, "body", None) if doc is not None else None
    if body is None:
        return MainContent(error="no main content found")
    content = MainContent()
    preformatted = PreformattedTexts(html)
    parts: list[str] = []
    offset = 0
    for elem in body.iter(*BLOCK_KINDS):
        if any(a.tag in BLOCK_KINDS for a in elem.iterancestors()):
            continue  # nested blocks are flattened into their outermost block
        raw: list[str] = []
        spans: list[tuple[str, int, int]] = []
        breaks: list[int] = []
        _flatten(elem, raw, spans, breaks)
        text, spans = _normalise_space("".join(raw), spans, breaks)
        if not text:
            continue
        if parts:
            parts.append("\n\n")
            offset += 2
        block_idx = len(content.blocks)
        kind = BLOCK_KINDS[elem.tag]
        if kind == "quote" and preformatted(text):
            kind = PREFORMATTED
        content.blocks.append(TextBlock(kind, offset, offset + len(text)))
        for s_idx, (s, e) in enumerate(split_sentences(text)):
            content.sentences.append(
                Sentence(block_idx, s_idx, kind, offset + s, offset + e, text[s:e])
            )
        for target, s, e in spans:
            content.links.append(TextLink(target, offset + s, offset + e, text[s:e]))
        parts.append(text)
        offset += len(text)
    content.text = "".join(parts)
    if not content.text:
        content.error = "no main content found"
    return content
