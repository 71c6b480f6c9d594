"""The light English stem: the forms of one word meet, different words stay apart."""

import pytest

from linkpipe.lib.text.lexical import phrase_key, stem


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["ikiwiki", "ikiwiki's", "Ikiwiki's"], "ikiwiki"),  # possessive 's (issue 11)
        (["boss", "boss's", "bosses"], "boss"),
        (["company's", "companies"], "company"),
        (["users", "users'", "user"], "user"),
        (["updating", "updated", "update", "updates"], "updat"),
        (["analysis"], "analysis"),  # -is is no plural
    ],
)
def test_forms_of_a_word_share_one_stem(words: list[str], expected: str) -> None:
    assert {stem(w) for w in words} == {expected}


def test_a_possessive_name_is_the_name_in_a_phrase_key() -> None:
    assert phrase_key("GIMP's toolbox") == phrase_key("GIMP toolbox") == ("gimp", "toolbox")
