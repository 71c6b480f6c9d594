"""The plan of a generated benchmark site: sections (one per topic), page titles, URLs and kinds
(normal, orphan, thin, near duplicate, deep chain); used by gen_large_site.py.

Section sizes follow a Zipf law (a few large sections, many small ones). Inside a section pages
are ordered by popularity: in-content links pick targets by a Zipf law over that order, so
early pages become hubs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
from sitegen_text import Vocabulary, title_case

NORMAL, ORPHAN, THIN, NEAR_DUP, CHAIN = "normal", "orphan", "thin", "near_dup", "chain"
SHARE_ORPHAN, SHARE_THIN, SHARE_NEAR_DUP = 0.01, 0.02, 0.01
MAX_PATH = 120  # characters of a generated page path
TEMPLATES = (
    "{x}",
    "{x}",
    "Introduction to {x}",
    "Configuring {x}",
    "Working with {x}",
    "{x} reference",
    "Troubleshooting {x}",
    "How to manage {x}",
    "{x} and {y}",
    "Understanding {x}",
    "{x} best practices",
    "Getting started with {x}",
    "Migrating {x}",
    "Advanced {x}",
    "{x} overview",
    "Using {x} with {y}",
)


@dataclass
class Section:
    """One section of the site: a topic, its URL folder and markup style."""

    topic: int
    slug: str
    name: str
    semantic: bool  # <header>/<nav>/<aside>/<footer> markup, else plain <div class=...>
    related: list[int] = field(default_factory=list)  # sections it links across to
    pages: list[int] = field(default_factory=list)  # page ids, most popular first
    linkable: list[int] = field(default_factory=list)  # pages other pages may link to


@dataclass
class SitePlan:
    """Everything about the pages except their text (rendered per page, deterministically)."""

    seed: int
    sections: list[Section]
    section_of: list[int]
    titles: list[str]
    paths: list[str]  # URL paths, "/section/slug.html"
    kinds: list[str]
    original: dict[int, int] = field(default_factory=dict)  # near duplicate -> original
    next_in_chain: dict[int, int] = field(default_factory=dict)


def slugify(text: str) -> str:
    """``"Using Foo (Version 2)"`` -> ``"using-foo-version-2"``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def section_sizes(n_pages: int, n_topics: int) -> list[int]:
    """Pages per section: Zipf-like (exponent 0.7), at least 3 each, summing to ``n_pages``."""
    weights = 1.0 / np.arange(1, n_topics + 1) ** 0.7
    sizes = np.maximum(3, np.floor(n_pages * weights / weights.sum())).astype(int)
    sizes[0] += n_pages - int(sizes.sum())
    return [int(s) for s in sizes]


def default_topics(n_pages: int) -> int:
    """Topics (sections) for a site size: ~16 at 1k pages, ~50 at 10k, ~160 at 100k."""
    return max(4, round(math.sqrt(n_pages) / 2))


def _sections(vocab: Vocabulary, n_topics: int, rng: np.random.Generator) -> list[Section]:
    sections, used = [], set()
    for t in range(n_topics):
        words = list(vocab.topics[t][:2])
        extra = 2
        while slugify(" ".join(words)) in used:
            words.append(vocab.topics[t][extra])
            extra += 1
        used.add(slugify(" ".join(words)))
        related = [int(r) for r in rng.choice(n_topics, size=min(3, n_topics), replace=False)]
        sections.append(
            Section(
                t,
                slugify(" ".join(words)),
                title_case(words),
                semantic=t % 3 != 2,
                related=[r for r in related if r != t] or [0],
            )
        )
    return sections


def _title(vocab: Vocabulary, topic: int, rng: np.random.Generator, taken: set[str]) -> str:
    for attempt in range(8):
        n_words = 1 + int(rng.integers(0, 2)) + attempt // 2
        words = list(dict.fromkeys(vocab.topical(rng, topic, n_words + 2)))[:n_words]
        other = str(vocab.topical(rng, topic, 1)[0])
        template = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
        title = template.format(x=title_case(words), y=title_case([other]))
        title = title[0].upper() + title[1:]
        if title not in taken:
            return title
    return f"{title} {title_case([str(vocab.general(rng, 1)[0])])} {len(taken)}"


def _kinds(section: Section, size: int, rng: np.random.Generator) -> list[str]:
    """Kinds of a section's pages by rank: the least popular end may be a deep chain."""
    kinds = [NORMAL] * size
    if section.topic % 4 == 1 and size >= 30:
        chain_len = int(np.clip(size // 12, 5, 15))
        kinds[size - chain_len :] = [CHAIN] * chain_len
    for rank in range(1, size):
        if kinds[rank] != NORMAL:
            continue
        u = rng.random()
        if u < SHARE_ORPHAN:
            kinds[rank] = ORPHAN
        elif u < SHARE_ORPHAN + SHARE_THIN:
            kinds[rank] = THIN
        elif u < SHARE_ORPHAN + SHARE_THIN + SHARE_NEAR_DUP and kinds[rank - 1] == NORMAL:
            kinds[rank] = NEAR_DUP
    return kinds


def _page_title(
    plan: SitePlan, kind: str, vocab: Vocabulary, section: Section, rng: np.random.Generator
) -> str:
    page = len(plan.titles)
    if kind == NEAR_DUP:
        return plan.titles[page - 1] + " (Version 2)"
    title = _title(vocab, section.topic, rng, {plan.titles[p] for p in section.pages[-50:]})
    if kind == CHAIN:
        previous = page - 1 if plan.kinds and plan.kinds[-1] == CHAIN else None
        part = 1 if previous is None else int(plan.titles[previous].split(":")[0][5:]) + 1
        title = f"Part {part}: {title}"
    return title


def _free_path(stem: str, taken: set[str]) -> str:
    """``stem``.html, with "-more" added while it is taken; a title repeated so often (a
    100k-page site repeats some 50 times) that the path would grow past ``MAX_PATH`` gets a
    number instead. Sites of up to 10k pages keep the paths they always had."""
    path = f"{stem}.html"
    while path in taken and len(path) + len("-more") <= MAX_PATH:
        path = path[: -len(".html")] + "-more.html"
    n = 2
    while path in taken:
        path, n = f"{stem}-{n}.html", n + 1
    return path


def _plan_section(
    plan: SitePlan, section: Section, size: int, vocab: Vocabulary, rng: np.random.Generator
) -> None:
    taken_paths: set[str] = set()
    for kind in _kinds(section, size, rng):
        page = len(plan.titles)
        title = _page_title(plan, kind, vocab, section, rng)
        path = _free_path(f"/{section.slug}/{slugify(title)}", taken_paths)
        taken_paths.add(path)
        chain_start = kind == CHAIN and title.startswith("Part 1:")
        if kind == CHAIN and not chain_start:
            plan.next_in_chain[page - 1] = page
        if kind == NEAR_DUP:
            plan.original[page] = page - 1
        if kind in (NORMAL, THIN, NEAR_DUP) or chain_start:
            section.linkable.append(page)
        plan.titles.append(title)
        plan.paths.append(path)
        plan.kinds.append(kind)
        plan.section_of.append(section.topic)
        section.pages.append(page)


def plan_site(n_pages: int, seed: int, vocab: Vocabulary, n_topics: int) -> SitePlan:
    """Sections, titles, URL paths and kinds of ``n_pages`` content pages (deterministic)."""
    rng = np.random.default_rng([seed, 2])
    sections = _sections(vocab, n_topics, rng)
    plan = SitePlan(seed, sections, [], [], [], [])
    for section, size in zip(sections, section_sizes(n_pages, n_topics), strict=True):
        _plan_section(plan, section, size, vocab, rng)
    return plan
