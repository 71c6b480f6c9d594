"""Per-crawl settings from a TOML file: crawl bounds, indexability rules, page types, graph and
scoring. Every key has a type and a range, checked on load (pydantic, strict: ``"no"`` is not a
boolean, ``"5"`` not an integer); a bad file raises :class:`ConfigError`, one line naming the
file, the key, the value and the rule. The settings are stored with the crawl
(``crawls.config_json``, a plain dict) so every stage of that crawl, and any re-run of it, uses
the same rules.

```toml
[crawl]          # any CrawlConfig field: max_pages, max_depth, user_agent, obey_robots, ...
max_pages = 5000
[indexability]   # IndexabilityRules: min_words, excluded_types, near_duplicate_max_bits, ...
min_words = 80   # thresholds are "auto" (measured on the site) unless a number fixes them
[page_types]     # URL regexes per type, replacing the defaults of that type
glossary = ["/glossary/", "/lexicon/"]
[graph]
deep_threshold = 3
[scoring]        # ScoringConfig: max_per_source, max_per_target, min_relevance, w_semantic, ...
max_per_source = 3
```

:func:`settings_table` renders every key with its rule and default (the table in README.md).
"""

from __future__ import annotations

import difflib
import json
import math
import re
import tomllib
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator, StringConstraints
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

from linkpipe.lib.content.indexability import IndexabilityRules
from linkpipe.lib.content.page_types import DEFAULT_TYPE_PATTERNS, PageTypeRules
from linkpipe.lib.content.site_thresholds import AUTO
from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.links.scoring_config import ScoringConfig

SECTIONS = ("crawl", "indexability", "page_types", "graph", "scoring")
GRAPH_KEYS = ("deep_threshold",)
DEFAULT_DEEP_THRESHOLD = 3
BUILT_IN_TYPES = ("home", "page", *DEFAULT_TYPE_PATTERNS)
REGEX_RULE = "a list of regular expressions"
HOST_PATTERN = r"^([A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$"
TABLE_DEFAULTS = {"strip_params": "tracking parameters (`DEFAULT_STRIP_PARAMS` in `lib/urls.py`)"}
STRICT = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class ConfigError(ValueError):
    """A settings file that cannot be used; one line naming the file and key."""


def _default(cls: type, name: str) -> Any:
    """The default of dataclass field ``name`` of ``cls`` (its factory called)."""
    spec = next(f for f in fields(cls) if f.name == name)
    return spec.default_factory() if spec.default_factory is not MISSING else spec.default


def _rule(cls: type, name: str, text: str, **constraints: Any) -> Any:
    """A settings field with the dataclass's default; ``text`` completes "must be ..."."""
    return Field(_default(cls, name), description=text, **constraints)


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern, re.IGNORECASE)  # as PageTypeRules compiles it
    except re.error as exc:
        raise PydanticCustomError(
            "regex", "{reason}", {"pattern": pattern, "reason": str(exc)}
        ) from None
    return pattern


Regex = Annotated[str, AfterValidator(_compiles)]
Host = Annotated[str, StringConstraints(pattern=HOST_PATTERN)]
Name = Annotated[str, StringConstraints(min_length=1)]
INT_0 = "an integer >= 0"
INT_1 = "an integer >= 1"
SHARE = "a number from 0 to 1"
BOOL = "true or false"
SECONDS = "a number of seconds"


class CrawlSettings(BaseModel):
    """[crawl]: the fields of CrawlConfig a settings file may set."""

    model_config = STRICT
    max_pages: int = _rule(CrawlConfig, "max_pages", INT_1, ge=1)
    max_depth: int = _rule(CrawlConfig, "max_depth", INT_0, ge=0)
    max_bytes: int = _rule(CrawlConfig, "max_bytes", INT_1, ge=1)
    request_timeout_s: float = _rule(CrawlConfig, "request_timeout_s", SECONDS + " > 0", gt=0)
    total_time_s: float = _rule(CrawlConfig, "total_time_s", SECONDS + " > 0", gt=0)
    concurrency: int = _rule(CrawlConfig, "concurrency", "an integer from 1 to 64", ge=1, le=64)
    user_agent: str = _rule(
        CrawlConfig,
        "user_agent",
        "a non-empty string without control characters",
        pattern=r"^[^\x00-\x1f\x7f]+$",
    )
    obey_robots: bool = _rule(CrawlConfig, "obey_robots", BOOL)
    max_crawl_delay_s: float = _rule(CrawlConfig, "max_crawl_delay_s", SECONDS + " >= 0", ge=0)
    allow_subdomains: bool = _rule(CrawlConfig, "allow_subdomains", BOOL)
    extra_hosts: list[Host] = _rule(
        CrawlConfig, "extra_hosts", "a list of host names (host or host:port)"
    )
    use_sitemap: bool = _rule(CrawlConfig, "use_sitemap", BOOL)
    trailing_slash: Literal["keep", "add", "strip"] = _rule(
        CrawlConfig, "trailing_slash", "one of keep, add, strip"
    )
    strip_params: list[Name] = _rule(
        CrawlConfig, "strip_params", "a list of non-empty parameter names"
    )
    trap_cap_per_pattern: int = _rule(
        CrawlConfig, "trap_cap_per_pattern", "an integer >= 0, 0 for no cap", ge=0
    )
    job_dir: str = _rule(CrawlConfig, "job_dir", "a folder path")
    autothrottle: bool = _rule(CrawlConfig, "autothrottle", BOOL)
    revalidate_first: bool = _rule(CrawlConfig, "revalidate_first", BOOL)
    retry_times: int = _rule(CrawlConfig, "retry_times", "an integer from 0 to 10", ge=0, le=10)
    template_min_pages: int = _rule(CrawlConfig, "template_min_pages", INT_1, ge=1)
    template_min_share: float = _rule(CrawlConfig, "template_min_share", SHARE, ge=0, le=1)


AUTO_OR = '"auto" (measured on the site) or '


def _auto_or(low: float, high: float | None = None, integer: bool = True) -> PlainValidator:
    """A threshold: "auto", or a number (an integer when ``integer``) from ``low`` to
    ``high``; anything else is one error, described by the field's rule."""

    def check(value: Any) -> Any:
        if isinstance(value, str) and value == AUTO:
            return value
        whole = isinstance(value, int) and not isinstance(value, bool)
        number = whole or (not integer and isinstance(value, float) and math.isfinite(value))
        if number and value >= low and (high is None or value <= high):
            return value if integer else float(value)
        raise PydanticCustomError("auto_or_number", "not auto or a number in range")

    return PlainValidator(check)


AutoInt = Annotated[int | Literal["auto"], _auto_or(0)]
AutoShare = Annotated[float | Literal["auto"], _auto_or(0, 1, integer=False)]
AutoBits = Annotated[int | Literal["auto"], _auto_or(0, 64)]


class IndexabilitySettings(BaseModel):
    """[indexability]: the fields of IndexabilityRules a settings file may set."""

    model_config = STRICT
    excluded_types: list[Name] = _rule(
        IndexabilityRules, "excluded_types", "a list of page types (built-in or [page_types])"
    )
    min_words: AutoInt = _rule(IndexabilityRules, "min_words", AUTO_OR + INT_0)
    thin_median_share: float = _rule(IndexabilityRules, "thin_median_share", SHARE, ge=0, le=1)
    thin_floor_words: int = _rule(IndexabilityRules, "thin_floor_words", INT_0, ge=0)
    thin_cap_words: int = _rule(IndexabilityRules, "thin_cap_words", INT_0, ge=0)
    listing_link_share: AutoShare = _rule(IndexabilityRules, "listing_link_share", AUTO_OR + SHARE)
    listing_min_links: int = _rule(IndexabilityRules, "listing_min_links", INT_0, ge=0)
    near_duplicate_max_bits: AutoBits = _rule(
        IndexabilityRules, "near_duplicate_max_bits", AUTO_OR + "an integer from 0 to 64"
    )
    auto_min_pages: int = _rule(IndexabilityRules, "auto_min_pages", "an integer >= 2", ge=2)


class GraphSettings(BaseModel):
    """[graph]: link-graph settings."""

    model_config = STRICT
    deep_threshold: int = Field(
        default=DEFAULT_DEEP_THRESHOLD,
        description=INT_0,
        ge=0,
    )


SIMILARITY = "a number from -1 to 1"


class ScoringSettings(BaseModel):
    """[scoring]: the fields of ScoringConfig a settings file may set."""

    model_config = STRICT
    w_semantic: float = _rule(ScoringConfig, "w_semantic", SHARE, ge=0, le=1)
    w_lexical: float = _rule(ScoringConfig, "w_lexical", SHARE, ge=0, le=1)
    w_title: float = _rule(ScoringConfig, "w_title", SHARE, ge=0, le=1)
    w_mention: float = _rule(ScoringConfig, "w_mention", SHARE, ge=0, le=1)
    w_graph: float = _rule(ScoringConfig, "w_graph", SHARE, ge=0, le=1)
    semantic_floor: float = _rule(
        ScoringConfig, "semantic_floor", SIMILARITY + ", below semantic_ceiling", ge=-1, le=1
    )
    semantic_ceiling: float = _rule(ScoringConfig, "semantic_ceiling", SIMILARITY, ge=-1, le=1)
    min_relevance: float = _rule(ScoringConfig, "min_relevance", SHARE, ge=0, le=1)
    max_per_source: int = _rule(ScoringConfig, "max_per_source", INT_1, ge=1)
    max_per_target: int = _rule(ScoringConfig, "max_per_target", INT_1, ge=1)
    max_same_anchor_per_target: int = _rule(
        ScoringConfig, "max_same_anchor_per_target", INT_1, ge=1
    )
    learn_weights: bool = _rule(ScoringConfig, "learn_weights", BOOL)
    min_linked_pairs: int = _rule(ScoringConfig, "min_linked_pairs", INT_1, ge=1)
    learned_share: float = _rule(ScoringConfig, "learned_share", SHARE, ge=0, le=1)
    cannibal_similarity: float = _rule(ScoringConfig, "cannibal_similarity", SHARE, ge=0, le=1)
    cannibal_title_overlap: float = _rule(
        ScoringConfig, "cannibal_title_overlap", SHARE, ge=0, le=1
    )


class RunSettings(BaseModel):
    """A whole settings file, one model per section."""

    model_config = STRICT
    crawl: CrawlSettings = Field(default_factory=CrawlSettings)
    indexability: IndexabilitySettings = Field(default_factory=IndexabilitySettings)
    page_types: dict[Name, list[Regex]] = Field(default_factory=dict, description=REGEX_RULE)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    scoring: ScoringSettings = Field(default_factory=ScoringSettings)


SECTION_MODELS: dict[str, type[BaseModel]] = {
    "crawl": CrawlSettings,
    "indexability": IndexabilitySettings,
    "graph": GraphSettings,
    "scoring": ScoringSettings,
}


def load_config_file(path: Path) -> dict[str, Any]:
    """Validated settings as stored in ``crawls.config_json`` (crawl keys at the top level)."""
    try:  # utf-8-sig: a byte-order mark (Windows editors) is no part of the settings
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path.name}: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path.name}: values nested too deeply to be settings") from None
    try:
        return validate_settings(data, path.name)
    except RecursionError:
        raise ConfigError(f"{path.name}: values nested too deeply to be settings") from None


def validate_settings(data: dict[str, Any], name: str) -> dict[str, Any]:
    """The stored form of the settings file ``name`` parsed into ``data``; the first problem
    raises ConfigError, one line."""
    try:
        settings = RunSettings.model_validate(data)
    except PydanticValidationError as exc:
        problems = exc.errors()
        more = f"; {len(problems) - 1} more error(s)" if len(problems) > 1 else ""
        raise ConfigError(f"{name}: {_describe(problems[0], data)}{more}") from None
    problem = _cross_field_problem(settings)
    if problem:
        raise ConfigError(f"{name}: {problem}")
    stored: dict[str, Any] = settings.crawl.model_dump(exclude_unset=True)
    for section in ("indexability", "page_types", "graph", "scoring"):
        if section in data:
            value = getattr(settings, section)
            stored[section] = (
                value if section == "page_types" else value.model_dump(exclude_unset=True)
            )
    return stored


def _describe(error: ErrorDetails, data: dict[str, Any]) -> str:
    """One pydantic error as ``[section] key: must be <rule> (got <value>)``."""
    loc = [str(part) for part in error["loc"]]
    section = loc[0]
    if len(loc) == 1:
        if error["type"] != "extra_forbidden":
            return f"[{section}] must be a table (got {_shown(data[section])})"
        owner = next((s for s, m in SECTION_MODELS.items() if section in m.model_fields), None)
        if owner:
            return f"key {section!r} is outside any section; put it under [{owner}]"
        return f"unknown section [{section}]; expected {', '.join(SECTIONS)}"
    key = loc[1]
    if error["type"] == "extra_forbidden":
        valid = list(SECTION_MODELS[section].model_fields)
        return f"unknown key {key!r} in [{section}]{_hint(key, valid)}; valid keys: " + ", ".join(
            valid
        )
    if loc[-1] == "[key]":
        return f"[{section}] {_shown(key)}: a page type name must not be empty"
    got = _shown(data[section][key])
    if error["type"] == "regex":
        context = error.get("ctx") or {}
        return (
            f"[{section}] {key}: {_shown(context.get('pattern'))} is not a valid regular "
            f"expression ({context.get('reason')})"
        )
    if section == "page_types":
        rule = REGEX_RULE
    else:
        rule = SECTION_MODELS[section].model_fields[key].description or "valid"
    return f"[{section}] {key}: must be {rule} (got {got})"


def _hint(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _shown(value: Any) -> str:
    """A value as written in TOML-like notation, shortened to 80 characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _cross_field_problem(settings: RunSettings) -> str | None:
    """Rules between keys: excluded page types must exist, the thin floor stays at or below
    its cap, the semantic floor stays below the ceiling."""
    known = [*BUILT_IN_TYPES, *(t for t in settings.page_types if t not in BUILT_IN_TYPES)]
    for page_type in settings.indexability.excluded_types:
        if page_type not in known:
            return (
                f"[indexability] excluded_types: unknown page type {page_type!r}"
                f"{_hint(page_type, known)}; page types: {', '.join(known)}"
            )
    rules = settings.indexability
    if rules.thin_floor_words > rules.thin_cap_words:
        return (
            "[indexability] thin_floor_words: must not be above thin_cap_words "
            f"(got {rules.thin_floor_words} and {rules.thin_cap_words})"
        )
    scoring = settings.scoring
    if scoring.semantic_floor >= scoring.semantic_ceiling:
        return (
            "[scoring] semantic_floor: must be below semantic_ceiling "
            f"(got {scoring.semantic_floor} and {scoring.semantic_ceiling})"
        )
    return None


def settings_table() -> str:
    """A Markdown table of every settings key: its rule and its default (README.md)."""
    lines = ["| key | must be | default |", "|---|---|---|"]
    for section, model in SECTION_MODELS.items():
        for key, info in model.model_fields.items():
            default = TABLE_DEFAULTS.get(key, f"`{_shown(info.default)}`")
            lines.append(f"| `[{section}] {key}` | {info.description} | {default} |")
        if section == "indexability":
            lines.append(f"| `[page_types] <type>` | {REGEX_RULE} | built-in patterns |")
    return "\n".join(lines)


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
    return int(config.get("graph", {}).get("deep_threshold", DEFAULT_DEEP_THRESHOLD))
