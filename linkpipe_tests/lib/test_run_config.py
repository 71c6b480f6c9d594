"""Per-crawl TOML settings: validation and the rules they build."""

import pytest

from linkpipe.lib.run_config import (
    ConfigError,
    deep_threshold,
    indexability_rules,
    load_config_file,
    scoring_config,
)

GOOD = """
[crawl]
max_pages = 50
user_agent = "acme-bot"
[indexability]
min_words = 120
excluded_types = ["utility"]
[page_types]
glossary = ["/lexicon/"]
[graph]
deep_threshold = 2
[scoring]
max_per_source = 2
"""


def test_settings_build_the_rules(tmp_path):
    path = tmp_path / "site.toml"
    path.write_text(GOOD)
    config = load_config_file(path)
    assert config["max_pages"] == 50 and config["user_agent"] == "acme-bot"
    rules = indexability_rules(config)
    assert rules.min_words == 120 and rules.excluded_types == ("utility",)
    assert rules.type_rules.classify("http://s.test/lexicon/canonical/") == "glossary"
    assert rules.type_rules.classify("http://s.test/glossary/x/") == "page"  # replaced, not added
    assert rules.type_rules.classify("http://s.test/blog/x/") == "blog"  # other defaults kept
    assert deep_threshold(config) == 2 and deep_threshold({}) == 3
    assert scoring_config(config).max_per_source == 2 and scoring_config({}).max_per_source == 5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[crawl]\nmax_pagez = 3\n", "site.toml: unknown key 'max_pagez' in [crawl]"),
        ("[extras]\na = 1\n", "site.toml: unknown section [extras]"),
        (
            "[page_types]\nblog = '/blog/'\n",
            'site.toml: [page_types] blog: must be a list of regular expressions (got "/blog/")',
        ),
        ("[crawl\n", "site.toml: "),
    ],
)
def test_bad_settings_name_file_and_key(tmp_path, text, message):
    path = tmp_path / "site.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config_file(path)
    assert str(err.value).startswith(message)
