"""Settings files are typed and ranged: each bad value is one line naming file, key, value and
rule; the stored form stays a plain dict that old crawls share."""

import json
from dataclasses import fields
from pathlib import Path

import pytest

from linkpipe.lib.content.indexability import IndexabilityRules
from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.links.scoring_config import ScoringConfig
from linkpipe.lib.run_config import (
    SECTION_MODELS,
    ConfigError,
    indexability_rules,
    load_config_file,
    scoring_config,
    settings_table,
)

README = Path(__file__).resolve().parents[2] / "README.md"


def load(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_config_file(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[crawl]\nmax_pages = "five"\n', 'max_pages: must be an integer >= 1 (got "five")'),
        ("[crawl]\nmax_pages = -1\n", "max_pages: must be an integer >= 1 (got -1)"),
        ("[crawl]\nmax_pages = 5.0\n", "max_pages: must be an integer >= 1 (got 5.0)"),
        ('[crawl]\nmax_pages = "5"\n', 'max_pages: must be an integer >= 1 (got "5")'),
        ('[crawl]\nobey_robots = "no"\n', 'obey_robots: must be true or false (got "no")'),
        ("[crawl]\nobey_robots = 0\n", "obey_robots: must be true or false (got 0)"),
        ("[crawl]\nconcurrency = 0\n", "concurrency: must be an integer from 1 to 64 (got 0)"),
        ("[crawl]\nconcurrency = 65\n", "concurrency: must be an integer from 1 to 64 (got 65)"),
        (
            "[crawl]\nmax_crawl_delay_s = -0.5\n",
            "max_crawl_delay_s: must be a number of seconds >= 0 (got -0.5)",
        ),
        (
            "[crawl]\nrequest_timeout_s = 0\n",
            "request_timeout_s: must be a number of seconds > 0 (got 0)",
        ),
        (
            "[crawl]\nrequest_timeout_s = nan\n",
            "request_timeout_s: must be a number of seconds > 0 (got NaN)",
        ),
        ("[crawl]\nmax_pages = true\n", "max_pages: must be an integer >= 1 (got true)"),
        (
            '[crawl]\ntrailing_slash = "both"\n',
            'trailing_slash: must be one of keep, add, strip (got "both")',
        ),
        (
            '[crawl]\nuser_agent = "a\\nb"\n',
            'user_agent: must be a non-empty string without control characters (got "a\\nb")',
        ),
        (
            '[crawl]\nextra_hosts = "cdn.example.com"\n',
            'extra_hosts: must be a list of host names (host or host:port) (got "cdn.example.com")',
        ),
        (
            '[crawl]\nextra_hosts = ["ok.example", "not a host"]\n',
            "extra_hosts: must be a list of host names (host or host:port) "
            '(got ["ok.example", "not a host"])',
        ),
        (
            "[indexability]\nnear_duplicate_max_bits = 65\n",
            'near_duplicate_max_bits: must be "auto" (measured on the site) or an integer from 0 '
            "to 64 (got 65)",
        ),
        (
            "[indexability]\nlisting_link_share = 1.5\n",
            'listing_link_share: must be "auto" (measured on the site) or a number from 0 to 1 '
            "(got 1.5)",
        ),
        (
            '[indexability]\nmin_words = "automatic"\n',
            'min_words: must be "auto" (measured on the site) or an integer >= 0 (got "automatic")',
        ),
        (
            "[indexability]\nmin_words = 40.5\n",
            'min_words: must be "auto" (measured on the site) or an integer >= 0 (got 40.5)',
        ),
        (
            "[indexability]\nlisting_link_share = true\n",
            'listing_link_share: must be "auto" (measured on the site) or a number from 0 to 1 '
            "(got true)",
        ),
        (
            "[indexability]\nlisting_link_share = nan\n",
            'listing_link_share: must be "auto" (measured on the site) or a number from 0 to 1 '
            "(got NaN)",
        ),
        (
            "[indexability]\nauto_min_pages = 1\n",
            "auto_min_pages: must be an integer >= 2 (got 1)",
        ),
        (
            "[indexability]\nthin_median_share = 1.2\n",
            "thin_median_share: must be a number from 0 to 1 (got 1.2)",
        ),
        ("[graph]\ndeep_threshold = -1\n", "deep_threshold: must be an integer >= 0 (got -1)"),
        ("[scoring]\nmax_per_source = 0\n", "max_per_source: must be an integer >= 1 (got 0)"),
        ("[scoring]\nw_semantic = 2\n", "w_semantic: must be a number from 0 to 1 (got 2)"),
    ],
)
def test_a_bad_value_is_one_line_with_file_key_value_and_rule(tmp_path, text, message):
    section = text.split("]")[0].lstrip("[")
    with pytest.raises(ConfigError) as err:
        load(tmp_path, text)
    assert str(err.value) == f"config.toml: [{section}] {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[page_types]\nglossary = ['/lexicon/', '([a-z']\n",
            'config.toml: [page_types] glossary: "([a-z" is not a valid regular expression '
            "(unterminated character set at position 1)",
        ),
        (
            "[crawl]\nmax_pagez = 3\n",
            "config.toml: unknown key 'max_pagez' in [crawl] (did you mean 'max_pages'?); "
            "valid keys: max_pages, max_depth, max_bytes, request_timeout_s, total_time_s, "
            "concurrency, user_agent, obey_robots, max_crawl_delay_s, allow_subdomains, "
            "extra_hosts, use_sitemap, trailing_slash, strip_params, trap_cap_per_pattern, "
            "job_dir, autothrottle, revalidate_first, retry_times, template_min_pages, "
            "template_min_share",
        ),
        (
            "[graph]\ndepth = 3\n",
            "config.toml: unknown key 'depth' in [graph]; valid keys: deep_threshold",
        ),
        (
            "max_pages = 3\n",
            "config.toml: key 'max_pages' is outside any section; put it under [crawl]",
        ),
        (
            "[scorin]\nmax_per_source = 3\n",
            "config.toml: unknown section [scorin]; expected crawl, indexability, page_types, "
            "graph, scoring",
        ),
        ("crawl = 3\n", "config.toml: [crawl] must be a table (got 3)"),
        (
            "[page_types]\n\"\" = ['/x/']\n",
            'config.toml: [page_types] "": a page type name must not be empty',
        ),
        (
            "[indexability]\nexcluded_types = ['utilty']\n",
            "config.toml: [indexability] excluded_types: unknown page type 'utilty' (did you mean "
            "'utility'?); page types: home, page, utility, listing, commercial, glossary, guide, blog",
        ),
        (
            "[indexability]\nthin_floor_words = 80\n",
            "config.toml: [indexability] thin_floor_words: must not be above thin_cap_words "
            "(got 80 and 60)",
        ),
        (
            "[scoring]\nsemantic_floor = 0.9\n",
            "config.toml: [scoring] semantic_floor: must be below semantic_ceiling (got 0.9 and 0.85)",
        ),
        (
            "[crawl]\nmax_depth = -1\nconcurrency = 0\n",
            "config.toml: [crawl] max_depth: must be an integer >= 0 (got -1); 1 more error(s)",
        ),
    ],
)
def test_regexes_keys_sections_and_cross_rules(tmp_path, text, message):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, text)
    assert str(err.value) == message
    assert "\n" not in str(err.value)


def test_a_good_file_is_stored_as_the_plain_dict_it_sets(tmp_path):
    config = load(
        tmp_path,
        "[crawl]\nmax_pages = 50\nrequest_timeout_s = 3\nobey_robots = false\n"
        "extra_hosts = ['cdn.example.com', '127.0.0.1:8000']\n"
        "[page_types]\ndocs = ['^/d/']\n[indexability]\nexcluded_types = ['docs', 'utility']\n"
        "[graph]\n[scoring]\nsemantic_floor = 0.3\n",
    )
    assert config == {
        "max_pages": 50,
        "request_timeout_s": 3.0,
        "obey_robots": False,
        "extra_hosts": ["cdn.example.com", "127.0.0.1:8000"],
        "indexability": {"excluded_types": ["docs", "utility"]},
        "page_types": {"docs": ["^/d/"]},
        "graph": {},
        "scoring": {"semantic_floor": 0.3},
    }
    assert json.loads(json.dumps(config)) == config  # what crawls.config_json holds
    crawl = CrawlConfig.from_dict({**config, "start_url": "http://s.test/"})
    assert (crawl.max_pages, crawl.obey_robots, crawl.concurrency) == (50, False, 16)
    assert indexability_rules(config).excluded_types == ("docs", "utility")
    assert scoring_config(config).semantic_floor == 0.3


def test_thresholds_are_auto_unless_a_number_fixes_them(tmp_path):
    config = load(
        tmp_path,
        '[indexability]\nmin_words = "auto"\nlisting_link_share = 0.7\n'
        "near_duplicate_max_bits = 0\nthin_cap_words = 100\n",
    )
    assert config["indexability"] == {
        "min_words": "auto",
        "listing_link_share": 0.7,
        "near_duplicate_max_bits": 0,
        "thin_cap_words": 100,
    }
    rules = indexability_rules(config)
    assert (rules.min_words, rules.listing_link_share, rules.near_duplicate_max_bits) == (
        "auto",
        0.7,
        0,
    )
    assert rules.thin_rule().configured is None and rules.thin_rule().cap_words == 100
    whole = load(tmp_path, "[indexability]\nlisting_link_share = 1\n")
    assert whole["indexability"]["listing_link_share"] == 1.0  # stored as the share it is
    defaults = indexability_rules({})
    assert (defaults.min_words, defaults.listing_link_share) == ("auto", "auto")


def test_a_crawl_stored_before_validation_still_builds_its_rules():
    old = {"max_pages": 500, "indexability": {"min_words": 300}, "graph": {"deep_threshold": 1}}
    assert indexability_rules(old).min_words == 300
    assert CrawlConfig.from_dict({**old, "start_url": "http://s.test/"}).max_pages == 500


def test_every_setting_has_a_rule_and_the_dataclass_default():
    pairs = [
        (CrawlConfig, "crawl", {"start_url", "previous", "previous_path", "seed_urls"}),
        (IndexabilityRules, "indexability", {"type_rules"}),
        (ScoringConfig, "scoring", {"direction"}),
    ]
    for cls, section, internal in pairs:
        model = SECTION_MODELS[section]
        defaults = {f.name: f for f in fields(cls) if f.name not in internal}
        assert set(model.model_fields) == set(defaults), section
        instance = cls(start_url="http://s.test/") if cls is CrawlConfig else cls()
        for name, info in model.model_fields.items():
            assert info.description, name
            assert info.default == getattr(instance, name), name


def test_readme_documents_every_key_with_its_rule():
    table = settings_table()
    assert table in README.read_text(encoding="utf-8")
    assert "| `[crawl] concurrency` | an integer from 1 to 64 | `16` |" in table
