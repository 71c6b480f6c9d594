"""A line break (<br>) ends a sentence: an infobox's lines are sentences of their own, with
offsets into the main text, and no anchor is placed across one."""

from linkpipe.lib.content.extraction import extract_main_content, split_sentences
from linkpipe.lib.links.anchors import SourceText, TargetProfile, target_phrases
from linkpipe.lib.links.lexical_anchors import place_anchor
from linkpipe.lib.links.windows import candidate_windows

# ikiwiki's plugin infobox (plugins/rename.html), then an ordinary paragraph whose source
# lines are wrapped by plain newlines, which are no line breaks
PAGE = """<html><head><title>rename</title></head><body>
<div id="pagebody"><div id="content" role="main">
<p><span class="infobox">
Plugin: rename<br />
Author: <span class="createlink">Joey</span><br />
Included in ikiwiki: yes<br />
Included in <a href="./goodstuff.html">goodstuff</a>: no<br />
Currently enabled: no<br />
</span></p>

<p>This plugin allows pages or other files to be renamed using the web
interface. Following Unix tradition, renaming also allows moving to a
different directory.</p>
</div></div></body></html>"""

INFOBOX = [
    "Plugin: rename",
    "Author: Joey",
    "Included in ikiwiki: yes",
    "Included in goodstuff: no",
    "Currently enabled: no",
]


def _content():  # noqa: ANN202
    content = extract_main_content(PAGE, "http://wiki.test/plugins/rename.html")
    assert content.error == ""
    return content


def _source() -> SourceText:
    content = _content()
    sentences = [(s.paragraph_idx, s.start, s.end, s.block_kind) for s in content.sentences]
    return SourceText(content.text, sentences, [(link.start, link.end) for link in content.links])


def test_each_line_of_an_infobox_is_a_sentence_with_offsets() -> None:
    content = _content()
    # one block: its lines are joined by a newline (a plain space before this rule)
    assert [b.kind for b in content.blocks] == ["paragraph", "paragraph"]
    first = content.blocks[0]
    assert content.text[first.start : first.end] == "\n".join(INFOBOX)
    texts = [(s.paragraph_idx, s.sentence_idx, s.text) for s in content.sentences]
    assert texts == [(0, i, line) for i, line in enumerate(INFOBOX)] + [
        (1, 0, "This plugin allows pages or other files to be renamed using the web interface."),
        (1, 1, "Following Unix tradition, renaming also allows moving to a different directory."),
    ]  # the source's own newlines ("web\ninterface") are spaces: no break there
    starts = [0]
    for line in INFOBOX[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    assert [(s.start, s.end) for s in content.sentences[:5]] == [
        (start, start + len(line)) for start, line in zip(starts, INFOBOX, strict=True)
    ]
    for sentence in content.sentences:
        assert content.text[sentence.start : sentence.end] == sentence.text
    (link,) = content.links  # the link in a line keeps its offsets
    assert content.text[link.start : link.end] == "goodstuff" == link.anchor_text
    assert link.start == starts[3] + len("Included in ")


def test_split_sentences_ends_a_sentence_at_a_newline() -> None:
    text = "Plugin: rename\nAuthor: Joey. He wrote it\nDone"
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == [
        "Plugin: rename",
        "Author: Joey.",
        "He wrote it",
        "Done",
    ]


def test_no_anchor_across_a_line_break() -> None:
    src = _source()
    # a title that occurs only across the break ("rename\nAuthor") is no mention of it
    named = TargetProfile("/rename-author", target_phrases("Rename author", "", "", []), {})
    assert place_anchor(src, named) == []
    # nor is a window whose words the target weighs on both sides of the break
    terms = {"renam": 1.0, "author": 1.0, "joey": 1.0}
    window = TargetProfile("/moving", target_phrases("Moving pages", "", "", []), terms)
    assert place_anchor(src, window) == []
    # semantic windows: none holds a line break ("rename Author", "Joey Included" were
    # windows); the infobox lines keep their own ("goodstuff" is a link: no window in it)
    texts = [
        src.text[src.tokens[w[0]][1] : src.tokens[w[1] - 1][2]] for w in candidate_windows(src)
    ]
    assert not [t for t in texts if "\n" in t]
    assert texts[:3] == ["Included in ikiwiki", "Currently enabled", "plugin allows"]
