"""Main-content extraction offsets and compact summaries on real HTML."""

from linkpipe.lib.content.extraction import extract_main_content, split_sentences
from linkpipe.lib.content.summaries import build_summary, slug_words

PAGE = """<html><head><title>Refreshing old posts</title></head><body>
<header><nav><a href="/">Home</a> <a href="/blog/">Blog</a></nav></header>
<main><article><h1>Why teams revisit older articles</h1>
<p>Many teams forget to revisit older articles that once brought steady traffic. A yearly
review keeps them accurate, e.g. by replacing outdated statistics.</p>
<h2>Where to start</h2>
<p>Start with the posts that lost the most clicks, and read our <a href="/guides/audit/">audit
checklist</a> before you rewrite anything.</p>
<ul><li>Check facts and dates in every section</li><li>Merge thin posts into stronger ones</li></ul>
</article></main><footer><a href="/privacy/">Privacy policy</a></footer></body></html>"""


def test_main_text_blocks_sentences_and_link_offsets():
    content = extract_main_content(PAGE, "http://site.test/blog/refresh/")
    assert content.error == ""
    assert "Privacy policy" not in content.text and "Home" not in content.text
    kinds = [b.kind for b in content.blocks]
    assert kinds == ["heading", "paragraph", "heading", "paragraph", "item", "item"]
    first = content.sentences[1]
    assert (
        first.text
        == "Many teams forget to revisit older articles that once brought steady traffic."
    )
    assert content.text[first.start : first.end] == first.text
    second = content.sentences[2]
    assert second.text.startswith("A yearly review") and second.text.endswith("statistics.")
    (link,) = content.links
    assert link.target_url == "http://site.test/guides/audit/"
    assert content.text[link.start : link.end] == "audit checklist" == link.anchor_text


def test_split_sentences_keeps_abbreviations():
    text = "Use tools, e.g. a crawler. Then fix it! Done"
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == ["Use tools, e.g. a crawler.", "Then fix it!", "Done"]


def test_broken_and_empty_html_give_reasons_not_errors():
    assert extract_main_content("").error == "empty document"
    broken = extract_main_content("<html><body><p>unclosed <b>bold <div></p>\x00\xff")
    assert broken.text == "" or isinstance(broken.text, str)


def test_summary_is_bounded_and_carries_identity():
    content = extract_main_content(PAGE, "http://site.test/blog/refresh-old-posts/")
    summary = build_summary(
        "http://site.test/blog/refresh-old-posts/",
        "Refreshing old posts",
        "Why teams revisit older articles",
        "How to bring old posts back.",
        content,
        max_words=40,
    )
    assert summary.startswith(
        "Refreshing old posts. Why teams revisit older articles. refresh old posts."
    )
    assert "How to bring old posts back." in summary
    assert len(summary.split()) <= 40
    assert slug_words("http://x.test/blog/2021/05/old-posts.html") == "old posts"


def test_a_parenthesised_suffix_most_titles_share_is_a_site_affix() -> None:
    from linkpipe.lib.content.summaries import clean_title, site_title_affixes

    titles = [f"{name} (Java SE 17 & JDK 17)" for name in ("FileReader", "HashMap", "List")]
    titles += ["Maps (a tutorial)", "Sets | Docs", "Lists | Docs", "Trees | Docs"]
    affixes = site_title_affixes(titles)
    assert affixes == {"(Java SE 17 & JDK 17)", "Docs"}
    assert clean_title("FileReader (Java SE 17 & JDK 17)", affixes) == "FileReader"
    assert clean_title("Maps (a tutorial)", affixes) == "Maps (a tutorial)"  # its own, kept
    assert clean_title("Sets | Docs", affixes) == "Sets"
    assert clean_title("(Java SE 17 & JDK 17)", affixes) == "(Java SE 17 & JDK 17)"


JAVADOC_LIKE = """<html><head><title>FileReader</title></head><body><main><section>
<p>Reads text from character files using a default buffer size. Decoding from bytes to
characters uses either a specified charset or the platform's default charset.</p>
<ul class="summary-list"><li><section class="constructor-summary">
<h2>Constructor Summary</h2>
<div class="summary-table"><div class="table-header">Constructor</div>
<div class="table-header">Description</div>
<div class="col-constructor-name"><code><a href="#a">FileReader</a>(<a href="File.html">File</a> file)</code></div>
<div class="col-last"><div class="block">Creates a new <code>FileReader</code>, given the
<code>File</code> to read.</div></div>
<div class="col-constructor-name"><code><a href="#b">FileReader</a>(String fileName)</code></div>
<div class="col-last"><div class="block">Creates a new <code>FileReader</code>, given the name
of the file to read.</div></div></div></section></li></ul></section></main></body></html>"""


def test_code_and_nested_blocks_do_not_run_into_the_words_around_them() -> None:
    content = extract_main_content(JAVADOC_LIKE)
    assert "Creates a new FileReader, given the File to read." in content.text
    assert "to read. FileReader(String fileName) Creates a new FileReader," in content.text
    assert "newFileReader" not in content.text and "theFile" not in content.text
    for link in content.links:  # offsets still index the text
        assert content.text[link.start : link.end] == link.anchor_text
