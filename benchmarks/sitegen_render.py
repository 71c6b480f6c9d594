"""HTML of a generated benchmark site: pages, section indexes, home and utility pages, with a
header menu, a section sidebar and a footer (semantic <header>/<nav>/<aside>/<footer> in some
sections, plain <div class=...> in others); used by gen_large_site.py.

A page's text depends only on the seed and the page id, so pages render in any order and an
edited or regenerated page is always the same.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

import numpy as np
from sitegen_plan import THIN, Section, SitePlan
from sitegen_text import Vocabulary, lognormal_length, sentence_text, sentences

SITE_NAME = "Acme Docs"
CROSS_TOPIC_SHARE = 0.15  # in-content links that leave the page's section
GENERIC_ANCHORS = ("this page", "here", "read more", "the guide", "the documentation")
ZIPF_LINK_S = 0.9  # popularity law of link targets inside a section
_LINK_CUMSUM = np.cumsum(1.0 / np.arange(1, 2**20 + 1) ** ZIPF_LINK_S)


@dataclass(frozen=True)
class Chrome:
    """Header and footer HTML of both markup styles, built once per site."""

    header: dict[bool, str]
    footer: dict[bool, str]

    @classmethod
    def build(cls, plan: SitePlan) -> Chrome:
        items = [("/", "Home")] + [(f"/{s.slug}/", s.name) for s in plan.sections[:12]]
        items += [("/search/", "Search")]
        menu = "".join(f'<li><a href="{u}">{t}</a></li>' for u, t in items)
        logo = f'<a class="logo" href="/">{SITE_NAME}</a>'
        foot = "".join(
            f'<a href="/{n}.html">{n.title()}</a> ' for n in ("about", "contact", "privacy")
        )
        copyright_ = f'<span class="copyright">Copyright {SITE_NAME}</span>'
        return cls(
            header={
                True: f'<header class="site-header">{logo}<nav class="menu"><ul>{menu}</ul></nav></header>',
                False: f'<div class="site-header">{logo}<div class="menu"><ul>{menu}</ul></div></div>',
            },
            footer={
                True: f'<footer class="site-footer">{foot}{copyright_}</footer>',
                False: f'<div class="site-footer">{foot}{copyright_}</div>',
            },
        )


def _link(plan: SitePlan, page: int) -> str:
    return f'<a href="{plan.paths[page]}">{plan.titles[page]}</a>'


def sidebar(plan: SitePlan, section: Section, page: int | None) -> str:
    """The section's sidebar: its index, 8 popular pages and the neighbours of ``page``."""
    shown = section.linkable[:8]
    if page is not None:
        at = bisect_left(section.linkable, page)
        shown += section.linkable[max(0, at - 6) : at + 6]
    items = [f'<li><a href="/{section.slug}/">{section.name}</a></li>']
    items += [f"<li>{_link(plan, p)}</li>" for p in dict.fromkeys(shown) if p != page]
    inner = f"<ul>{''.join(items)}</ul>"
    if section.semantic:
        return f'<aside class="sidebar"><nav>{inner}</nav></aside>'
    return f'<div class="sidebar">{inner}</div>'


def page_shell(
    chrome: Chrome,
    section: Section | None,
    title: str,
    body: str,
    side: str = "",
    head: str = "",
) -> str:
    """A whole HTML document around ``body`` (already HTML) in the section's markup style
    (semantic for pages outside sections), with a breadcrumb inside a section."""
    semantic = section.semantic if section else True
    crumbs = (
        f'<div class="breadcrumb"><a href="/">Home</a> &rsaquo; '
        f'<a href="/{section.slug}/">{section.name}</a></div>'
        if section
        else ""
    )
    main = f"{crumbs}<h1>{title}</h1>{body}"
    main = (
        f'<main class="content"><article>{main}</article></main>'
        if semantic
        else f'<div class="content"><div class="post">{main}</div></div>'
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{title} | {SITE_NAME}</title>{head}</head>\n<body>"
        f'{chrome.header[semantic]}\n<div class="layout">{side}\n{main}</div>\n'
        f"{chrome.footer[semantic]}</body></html>\n"
    )


def _targets(plan: SitePlan, page: int, n: int, rng: np.random.Generator) -> list[int]:
    """Link targets: mostly popular pages of the same section, some of a related section."""
    section = plan.sections[plan.section_of[page]]
    out = []
    for _ in range(n):
        if rng.random() < CROSS_TOPIC_SHARE:
            pool = plan.sections[section.related[int(rng.integers(len(section.related)))]].linkable
        else:
            pool = section.linkable
        if not pool:
            continue
        total = _LINK_CUMSUM[min(len(pool), len(_LINK_CUMSUM)) - 1]
        rank = int(np.searchsorted(_LINK_CUMSUM, rng.random() * total))
        target = pool[min(rank, len(pool) - 1)]
        if target != page:
            out.append(target)
    return out


def _anchor(plan: SitePlan, target: int, rng: np.random.Generator) -> str:
    """Anchor text: the target's title, a phrase of it, or a generic phrase."""
    u = rng.random()
    if u < 0.45:
        return plan.titles[target]
    if u < 0.8:
        words = [w.lower() for w in plan.titles[target].split() if len(w) > 3 and w.isalpha()]
        if words:
            start = int(rng.integers(len(words)))
            return " ".join(words[start : start + int(rng.integers(1, 4))])
    return GENERIC_ANCHORS[int(rng.integers(len(GENERIC_ANCHORS)))]


def _extra_block(vocab: Vocabulary, topic: int, rng: np.random.Generator) -> str:
    """Sometimes a code sample or a bullet list after a heading, as documentation has."""
    u = rng.random()
    if u < 0.25:
        lines = []
        for _ in range(int(rng.integers(3, 9))):
            a, b, c = vocab.topical(rng, topic, 3)
            lines.append(f'{a}.{b}({c}="{vocab.general(rng, 1)[0]}")')
        return "<pre><code>" + "\n".join(lines) + "</code></pre>"
    if u < 0.5:
        items = (
            f"<li>{sentence_text(vocab.mixed(rng, topic, int(rng.integers(3, 9))))}</li>"
            for _ in range(int(rng.integers(3, 7)))
        )
        return "<ul>" + "".join(items) + "</ul>"
    return ""


def _blocks(vocab: Vocabulary, topic: int, sents: list[list[str]], rng: np.random.Generator) -> str:
    """Sentences grouped into paragraphs of 2-6, with an <h2> every 4 paragraphs."""
    blocks, at, n_par = [], 0, 0
    while at < len(sents):
        take = int(rng.integers(2, 7))
        blocks.append("<p>" + " ".join(sentence_text(s) for s in sents[at : at + take]) + "</p>")
        at, n_par = at + take, n_par + 1
        if n_par % 4 == 0 and at < len(sents):
            heading = list(vocab.topical(rng, topic, int(rng.integers(2, 4))))
            blocks.append(f"<h2>{sentence_text(heading)[:-1]}</h2>")
            blocks.append(_extra_block(vocab, topic, rng))
    return "\n".join(blocks)


def page_body(
    plan: SitePlan,
    vocab: Vocabulary,
    page: int,
    rng: np.random.Generator,
    perturb: np.random.Generator | None = None,
) -> tuple[str, str]:
    """(body HTML, meta description) of a content page; ``perturb`` changes two words."""
    topic = plan.section_of[page]
    thin = plan.kinds[page] == THIN
    n_words = int(rng.integers(15, 46)) if thin else lognormal_length(rng)
    sents = sentences(vocab.mixed(rng, topic, n_words), rng)
    if perturb is not None:
        sentence = sents[int(perturb.integers(len(sents)))]
        for _ in range(2):
            sentence[int(perturb.integers(len(sentence)))] = str(vocab.general(perturb, 1)[0])
    description = sentence_text(sents[0])[:155]
    n_links = 0 if thin else min(40, n_words // 110 + int(rng.poisson(1.0)))
    for target in _targets(plan, page, n_links, rng):
        sentence = sents[int(rng.integers(len(sents)))]
        html = f'<a href="{plan.paths[target]}">{_anchor(plan, target, rng)}</a>'
        sentence.insert(int(rng.integers(1, len(sentence) + 1)), html)
    return _blocks(vocab, topic, sents, rng), description


def page_html(plan: SitePlan, vocab: Vocabulary, chrome: Chrome, page: int) -> str:
    """The HTML of content page ``page`` (a near duplicate renders its original, perturbed)."""
    source = plan.original.get(page, page)
    rng = np.random.default_rng([plan.seed, 3, source])
    perturb = np.random.default_rng([plan.seed, 4, page]) if source != page else None
    body, description = page_body(plan, vocab, source, rng, perturb)
    if page in plan.next_in_chain:
        body += f'\n<p class="next">Next: {_link(plan, plan.next_in_chain[page])}</p>'
    canonical = plan.paths[source] if page % 2 == 0 else plan.paths[page]
    head = (
        f'<meta name="description" content="{description}">'
        f'<link rel="canonical" href="__BASE_URL__{canonical}">'
    )
    section = plan.sections[plan.section_of[page]]
    return page_shell(chrome, section, plan.titles[page], body, sidebar(plan, section, page), head)


def section_html(plan: SitePlan, vocab: Vocabulary, chrome: Chrome, section: Section) -> str:
    """A section index: a short introduction and a list of its linkable pages."""
    rng = np.random.default_rng([plan.seed, 5, section.topic])
    intro = sentence_text(vocab.mixed(rng, section.topic, 40))
    items = "".join(f"<li>{_link(plan, p)}</li>" for p in section.linkable)
    body = f'<p>{intro}</p><ul class="pages">{items}</ul>'
    return page_shell(chrome, section, section.name, body, sidebar(plan, section, None))


def home_html(plan: SitePlan, vocab: Vocabulary, chrome: Chrome) -> str:
    """The home page: every section and the most popular page of the first 30."""
    rng = np.random.default_rng([plan.seed, 6])
    intro = " ".join(sentence_text(list(vocab.general(rng, 18))) for _ in range(3))
    sections = "".join(f'<li><a href="/{s.slug}/">{s.name}</a></li>' for s in plan.sections)
    popular = "".join(f"<li>{_link(plan, s.linkable[0])}</li>" for s in plan.sections[:30])
    body = f"<p>{intro}</p><h2>Topics</h2><ul>{sections}</ul><h2>Popular</h2><ul>{popular}</ul>"
    return page_shell(chrome, None, SITE_NAME, body)


def utility_html(plan: SitePlan, vocab: Vocabulary, chrome: Chrome, name: str) -> str:
    """About, contact, privacy and search pages: short general text."""
    rng = np.random.default_rng([plan.seed, 7, len(name)])
    text = " ".join(sentence_text(list(vocab.general(rng, 15))) for _ in range(5))
    return page_shell(chrome, None, name.title(), f"<p>{text}</p>")
