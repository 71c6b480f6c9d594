"""Per-crawl settings from a TOML file: crawl bounds, indexability rules, page types, graph and
scoring. They are stored with the crawl (``crawls.config_json``) so every stage of that crawl,
and any re-run of it, uses the same rules.

```toml
[crawl]          # any CrawlConfig field: max_pages, max_depth, user_agent, obey_robots, ...
max_pages = 5000
[indexability]   # IndexabilityRules: min_words, excluded_types, near_duplicate_max_bits, ...
min_words = 80
[page_types]     # URL regexes per type, replacing the defaults of that type
glossary = ["/glossary/", "/lexicon/"]
[graph]
deep_threshold = 3
[scoring]        # ScoringConfig: max_per_source, max_per_target, min_relevance, w_semantic, ...
max_per_source = 3
```
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

from linkpipe.lib.content.indexability import IndexabilityRules
from linkpipe.lib.content.page_types import DEFAULT_TYPE_PATTERNS, PageTypeRules
from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.links.scoring import ScoringConfig

SECTIONS = ("crawl", "indexability", "page_types", "graph", "scoring")
GRAPH_KEYS = ("deep_threshold",)


class ConfigError(ValueError):
    """A settings file that cannot be used; one line naming the file and key."""


def _known(cls: type) -> set[str]:
    return {f.name for f in fields(cls)}


def load_config_file(path: Path) -> dict[str, Any]:
    """Validated settings as stored in ``crawls.config_json`` (crawl keys at the top level)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path.name}: {exc}") from exc
    allowed = {
        "crawl": _known(CrawlConfig) - {"start_url", "previous", "previous_path", "seed_urls"},
        "indexability": _known(IndexabilityRules) - {"type_rules"},
        "scoring": _known(ScoringConfig) - {"direction"},
        "graph": set(GRAPH_KEYS),
    }
    for section, values in data.items():
        if section not in SECTIONS:
            raise ConfigError(
                f"{path.name}: unknown section [{section}]; expected {', '.join(SECTIONS)}"
            )
        if not isinstance(values, dict):
            raise ConfigError(f"{path.name}: [{section}] must be a table")
        if section == "page_types":
            for name, patterns in values.items():
                if not (isinstance(patterns, list) and all(isinstance(p, str) for p in patterns)):
                    raise ConfigError(f"{path.name}: [page_types] {name} must be a list of regexes")
            continue
        unknown = sorted(set(values) - allowed[section])
        if unknown:
            raise ConfigError(f"{path.name}: unknown key {unknown[0]!r} in [{section}]")
    stored: dict[str, Any] = dict(data.get("crawl", {}))
    for section in ("indexability", "page_types", "graph", "scoring"):
        if section in data:
            stored[section] = data[section]
    return stored


def indexability_rules(config: dict[str, Any]) -> IndexabilityRules:
    """IndexabilityRules of a stored crawl config (defaults for what it does not set)."""
    patterns = {**DEFAULT_TYPE_PATTERNS, **config.get("page_types", {})}
    values = dict(config.get("indexability", {}))
    if "excluded_types" in values:
        values["excluded_types"] = tuple(values["excluded_types"])
    return IndexabilityRules(type_rules=PageTypeRules(patterns), **values)


def scoring_config(config: dict[str, Any]) -> ScoringConfig:
    """ScoringConfig of a stored crawl config."""
    return ScoringConfig(**config.get("scoring", {}))


def deep_threshold(config: dict[str, Any]) -> int:
    """Click depth above which a page counts as deep."""
    return int(config.get("graph", {}).get("deep_threshold", 3))
