"""The attribute ruler's POS patterns applied without spaCy's matcher: precedence and forms."""

from linkpipe.lib.text.pos_rules import PosRules

PATTERNS = [
    {"patterns": [[{"TAG": "NN"}]], "attrs": {"POS": "NOUN"}, "index": 0},
    {"patterns": [[{"TAG": "IN"}]], "attrs": {"POS": "ADP"}, "index": 0},
    {"patterns": [[{"TAG": "NN", "LOWER": {"IN": ["something", "nobody"]}}]],
     "attrs": {"POS": "PRON"}, "index": 0},
    {"patterns": [[{"TAG": "IN", "LOWER": {"REGEX": "^(if|that)$"}}]],
     "attrs": {"POS": "SCONJ"}, "index": 0},
    {"patterns": [[{"TAG": "DT", "LOWER": "a"}]], "attrs": {"MORPH": "Definite=Ind"}, "index": 0},
    {"patterns": [[{"DEP": "expl"}, {"LOWER": {"IN": ["is", "are"]}}]],
     "attrs": {"POS": "VERB"}, "index": -1},
    {"patterns": [[{"IS_SPACE": True}]], "attrs": {"POS": "SPACE"}, "index": 0},
    {"patterns": [[{"TAG": "VBZ", "DEP": {"NOT_IN": ["aux"]}}]], "attrs": {"POS": "VERB"},
     "index": 0},
]  # fmt: skip


def _tag(rules: PosRules, tokens: list[tuple[str, str, str, bool]]) -> list[str]:
    return rules.tag(tokens, lambda key: key)  # the attributes are their own keys here


def test_later_patterns_win_and_every_condition_form_is_read() -> None:
    rules = PosRules.of(PATTERNS)
    assert rules is not None
    tokens = [
        ("EX", "expl", "there", False),
        ("VBZ", "aux", "is", False),  # NOT_IN keeps the VBZ rule off; the two-token rule sets it
        ("NN", "nsubj", "something", False),  # the exception after the tag map
        ("IN", "mark", "if", False),  # REGEX
        ("IN", "prep", "in", False),
        ("DT", "det", "a", False),  # a pattern that sets no POS
        ("_SP", "dep", " ", True),
        ("VBZ", "ROOT", "runs", False),
        ("NN", "dobj", "garden", False),
    ]
    assert _tag(rules, tokens) == [
        "", "VERB", "PRON", "SCONJ", "ADP", "", "SPACE", "VERB", "NOUN"
    ]  # fmt: skip
    # remembered verdicts give the same answer a second time
    assert _tag(rules, tokens[2:5]) == ["PRON", "SCONJ", "ADP"]


def test_patterns_it_cannot_reproduce_keep_spacys_component() -> None:
    with_operator = [{"patterns": [[{"TAG": "NN", "OP": "+"}]], "attrs": {"POS": "NOUN"}}]
    other_attribute = [{"patterns": [[{"SHAPE": "Xxxx"}]], "attrs": {"POS": "PROPN"}}]
    assert PosRules.of(with_operator) is None
    assert PosRules.of(other_attribute) is None
    # a pattern that sets no POS is never read, whatever it uses
    assert PosRules.of([{"patterns": [[{"SHAPE": "Xxxx"}]], "attrs": {"MORPH": "_"}}]) is not None
