"""Well-formed anchor spans judged on real parses (spaCy's English pipeline), and the fallback."""

from __future__ import annotations

import pytest

from linkpipe.lib.text.phrases import (
    PhraseJudge,
    default_judge,
    fallback_verdict,
    on_word_boundaries,
)

# (sentence, anchor, verdict) from the demo site's pages; issue 11 lists the rejected ones
CASES = [
    ("Our content audits show which pages are earning their keep and which are holding the "
     "site back.", "pages are earning", "not_a_phrase"),
    ("Readers and search engines both notice a blog that publishes in bursts and then goes "
     "silent for six months.", "blog that publishes", "not_a_phrase"),
    ("Then note what kind of page the search results suggest people want, whether a tutorial, "
     "a comparison or a checklist.", "page the search", "not_a_phrase"),
    ("Causes include information becoming outdated, changes in what searchers expect to find, "
     "new features on the results page.", "changes in what searchers", "not_a_phrase"),
    ("Search engines can only discover it through other means, such as an XML sitemap or links "
     "from external sites.", "links from external", "not_a_phrase"),
    ("A full inventory of every indexable page, combined with search console, analytics and "
     "backlink data.", "analytics and backlink", "not_a_phrase"),
    ("You can also email hello@brightleaf.example or call 0117 496 0000 on weekdays between nine "
     "and five.", "email hello@brightleaf", "cuts_word"),
    ("You can also email hello@brightleaf.example or call 0117 496 0000 on weekdays between nine "
     "and five.", "call 0117 496", "cuts_name"),
    ("Brightleaf Content Studio helps small businesses plan their content.",
     "Brightleaf Content", "cuts_name"),
    ("Two pages competing for one query is keyword cannibalisation, and it hurts both.",
     "keyword cannibalisation", "noun_phrase"),
    ("Good internal links help readers find the next page.", "internal links", "noun_phrase"),
    ("Start with the content audit before you write anything new.", "the content audit",
     "noun_phrase"),
    ("Brightleaf Content Studio helps small businesses plan their content.",
     "Brightleaf Content Studio", "noun_phrase"),
]  # fmt: skip


@pytest.fixture(scope="module")
def judge() -> PhraseJudge:
    judge = default_judge()
    assert judge.parsed, "spaCy and an English pipeline are dependencies of linkpipe"
    return judge


@pytest.mark.parametrize(("sentence", "anchor", "verdict"), CASES)
def test_verdicts_on_real_parses(judge, sentence, anchor, verdict) -> None:
    start = sentence.index(anchor)
    assert judge.verdict(sentence, start, start + len(anchor)) == verdict
    assert judge.well_formed(sentence, start, start + len(anchor)) == (verdict == "noun_phrase")


def test_a_complete_constituent_is_well_formed(judge) -> None:
    for sentence, anchor in [  # the whole subtree of one word, no noun at its end
        ("Continue reading about layer masks.", "reading about layer masks"),
        ("Keep the anchors short and specific.", "short and specific"),
    ]:
        start = sentence.index(anchor)
        assert judge.verdict(sentence, start, start + len(anchor)) == "constituent"


def test_repair_grows_a_cut_name_or_address_to_the_whole(judge) -> None:
    sentence = CASES[8][0]
    span = judge.repair(sentence, 0, len("Brightleaf Content"))
    assert span is not None and sentence[span[0] : span[1]] == "Brightleaf Content Studio"
    sentence = CASES[6][0]
    start = sentence.index("hello@brightleaf")
    span = judge.repair(sentence, start, start + len("hello@brightleaf"))
    assert span is not None and sentence[span[0] : span[1]] == "hello@brightleaf.example"


def test_each_sentence_is_parsed_once(judge) -> None:
    sentence = "A sentence parsed once serves every anchor judged in it."
    before = judge.parsed_sentences
    judge.prepare([sentence, sentence])
    for anchor in ("A sentence", "every anchor", "anchor judged"):
        start = sentence.index(anchor)
        judge.verdict(sentence, start, start + len(anchor))
    assert judge.parsed_sentences == before + 1


def test_word_boundaries_keep_addresses_urls_and_code_whole() -> None:
    sentence = 'Run gimp-image-new or see "https://a.test/x" (the docs).'
    assert on_word_boundaries(sentence, 4, 18)  # gimp-image-new
    assert not on_word_boundaries(sentence, 9, 18)  # image-new
    assert not on_word_boundaries(sentence, 4, 14)  # gimp-image
    url = sentence.index("https")
    assert on_word_boundaries(sentence, url, url + len("https://a.test/x"))
    assert not on_word_boundaries(sentence, url, url + len("https://a.test"))
    docs = sentence.index("the docs")
    assert on_word_boundaries(sentence, docs, docs + len("the docs"))


def test_fallback_without_a_parser() -> None:
    judge = PhraseJudge(None)
    assert not judge.parsed
    sentence = CASES[8][0]
    assert judge.verdict(sentence, 0, len("Brightleaf Content")) == "cuts_name"
    sentence = CASES[5][0]
    start = sentence.index("analytics and")
    assert fallback_verdict(sentence, start, start + len("analytics and")) == "not_a_phrase"
    start = sentence.index("backlink data")
    assert judge.well_formed(sentence, start, start + len("backlink data"))


def test_a_sentence_parsed_in_a_batch_or_alone_gets_the_same_parse() -> None:
    # candidates.py parses a source's sentences in a batch or one at a time (few pairs to
    # place): anchor rows must not depend on which, so neither may the parse
    from linkpipe.lib.text.parsing import load_parser, parse_of

    sentences = [case[0] for case in CASES] + [
        "Filters: Blur, Gaussian Blur (radius 4.5 px) and the Layer → Transparency menu.",
        "Use QuerySet.filter() with F() expressions; see django.db.models.F for details.",
        "Plugin: rename",
        "Included in ikiwiki: yes",
    ]
    batch, alone = PhraseJudge(load_parser()), PhraseJudge(load_parser())
    batch.prepare(sentences)
    assert batch.parsed_sentences == len(set(sentences))
    for sentence in sentences:
        assert batch.cache[sentence] == alone.parse(sentence)
    parser = load_parser()
    assert parser is not None
    assert alone.parse(sentences[0]) == parse_of(parser.nlp(sentences[0]), parser.rules)


def _demo_texts() -> list[str]:
    from pathlib import Path

    from selectolax.lexbor import LexborHTMLParser as HTMLParser

    import linkpipe

    root = Path(linkpipe.__file__).parent / "demo_site"
    texts = []
    for page in sorted(root.rglob("*.html")):
        body = HTMLParser(page.read_text(encoding="utf-8")).body
        texts += [p.text(separator=" ").strip() for p in body.css("p, li, h1, h2")] if body else []
    return [t for t in texts if t]


def test_parts_of_speech_and_parse_equal_spacys_own_components_on_the_demo_site() -> None:
    # the attribute ruler's POS patterns are applied without its matcher (pos_rules.py) and the
    # layers multiply with NumPy's BLAS, not thinc's default blis: the demo site's every
    # paragraph, list item and heading must get what spaCy's own pipeline gives
    import spacy
    from thinc.api import NumpyOps

    from linkpipe.lib.text.parsing import PIPELINES, load_parser

    parser = load_parser()
    assert parser is not None and parser.rules is not None
    assert "attribute_ruler" in parser.nlp.disabled
    for pipe in ("tok2vec", "tagger"):  # the parser's own state code calls blis itself
        layers = list(parser.nlp.get_pipe(pipe).model.walk())
        assert layers and all(isinstance(m.ops, NumpyOps) and not m.ops.use_blis for m in layers)
    name = next(n for n in PIPELINES if spacy.util.is_package(n))
    full = spacy.load(name, exclude=["ner", "lemmatizer"])
    assert all(m.ops.use_blis for m in full.get_pipe("tok2vec").model.walk())
    texts = _demo_texts() + [
        "There is something that anyone can do, but nobody does it.",
        "If it is ready, they said that it was, although it wasn't.",
    ]
    assert len(texts) > 500
    pos_seen: set[str] = set()
    for text, doc in zip(texts, full.pipe(texts), strict=True):
        parse = parser.parse(text)
        assert parse.pos == tuple(t.pos_ for t in doc), text
        assert parse.heads == tuple(t.head.i for t in doc), text
        assert parse.starts == tuple(t.idx for t in doc), text
        pos_seen |= set(parse.pos)
    # the exceptions of the rules, not only the tag map, are exercised
    assert {"PRON", "SCONJ", "NOUN", "PROPN", "VERB", "AUX", "NUM", "PUNCT"} <= pos_seen


def test_subtree_edges_hold_every_descendant() -> None:
    from linkpipe.lib.text.parsing import _subtree_edges

    # 0 <- 1 (root) -> 3 -> 2 ; 4 -> 1 ; a non-projective arc: 5 hangs from 0
    heads = (1, 1, 3, 1, 1, 0)
    left, right = _subtree_edges(heads)
    assert left == (0, 0, 2, 2, 4, 5)
    assert right == (5, 5, 2, 3, 4, 5)
    # a cycle in bad input ends instead of looping
    assert _subtree_edges((1, 0)) == ((0, 0), (1, 1))
