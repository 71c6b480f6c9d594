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


# A reference page as DocBook renders one (PostgreSQL's): a command synopsis and an example in
# <pre> blocks, which trafilatura keeps as quotes, and a quotation in a <blockquote>.
REFERENCE_PAGE = """<html><head><title>CREATE SERVER</title></head><body>
<div class="navheader"><a href="sql-commands.html">Up</a></div>
<div class="refentry"><h2>CREATE SERVER</h2><p>CREATE SERVER — define a new foreign server</p>
<div class="refsynopsisdiv"><h2>Synopsis</h2><pre class="synopsis">
CREATE SERVER [ IF NOT EXISTS ] <em class="replaceable"><code>server_name</code></em>
    FOREIGN DATA WRAPPER <em class="replaceable"><code>fdw_name</code></em>
</pre></div>
<div class="refsect1"><h2>Description</h2>
<p>CREATE SERVER defines a new foreign server. The user who defines the server becomes its
owner. A foreign server typically encapsulates connection information that a foreign-data
wrapper uses to access an external data resource.</p>
<blockquote><p>A foreign data wrapper is a library that can communicate with an external data
source, hiding the details of connecting to the data source.</p></blockquote>
<p>Create a server myserver that uses the foreign-data wrapper postgres_fdw:</p>
<pre class="programlisting">
CREATE SERVER myserver FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'foo', port '5432');
</pre>
</div></div></body></html>"""


def test_pre_blocks_stay_in_the_text_but_are_preformatted_not_quotes():
    content = extract_main_content(REFERENCE_PAGE, "http://docs.test/sql-createserver.html")
    kinds = {content.text[b.start : b.end][:24]: b.kind for b in content.blocks}
    assert kinds["CREATE SERVER [ IF NOT E"] == "preformatted"
    assert kinds["CREATE SERVER myserver F"] == "preformatted"
    assert kinds["A foreign data wrapper i"] == "quote"  # a quotation: prose an anchor may use
    assert "FOREIGN DATA WRAPPER fdw_name" in content.text  # the words still count
    pre = [s for s in content.sentences if s.block_kind == "preformatted"]
    assert {s.text[:22] for s in pre} == {"CREATE SERVER [ IF NOT", "CREATE SERVER myserver"}
    # the same blocks quoted in <blockquote>s are quotes
    plain = extract_main_content(REFERENCE_PAGE.replace("pre", "blockquote"))
    assert "preformatted" not in {b.kind for b in plain.blocks}


def test_a_block_that_comes_from_a_pre_with_bits_left_out_is_still_preformatted():
    from linkpipe.lib.content.extraction import PreformattedTexts

    listing = (
        '"""Global Django exception and warning classes."""\n'
        "import operator\n<a href='#'>[docs]</a>class FieldDoesNotExist(Exception):\n"
        '    """The requested model field does not exist"""\n    pass\n'
    )
    html = f"<html><body><pre>{listing}</pre><p>Prose.</p><pre>SELECT 1;</pre></body></html>"
    is_pre = PreformattedTexts(html)
    # trafilatura left "[docs]" out of the middle: the head and the tail are the listing's
    cut = listing.replace("<a href='#'>[docs]</a>", "").replace("\n", " ")
    assert is_pre(cut)
    assert is_pre("SELECT 1 ;")  # a short block is a <pre>'s when it is all of one...
    assert not is_pre("import operator")  # ...not when it is a bit of one: a quotation
    assert not is_pre("A quotation of forty characters or more, not in any listing.")
    assert not PreformattedTexts("")("import operator")  # no page, no <pre>


def test_a_pre_is_found_in_a_page_whose_meta_names_another_charset():
    # the crawler decoded the page already: its <meta charset> must not decode it again
    page = REFERENCE_PAGE.replace(
        "<head>", '<head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
    ).replace("fdw_name</code></em>", "fdw_name</code></em> -- café, naïve")
    content = extract_main_content(page, "http://docs.test/sql-createserver.html")
    (synopsis,) = [b for b in content.blocks if "café" in content.text[b.start : b.end]]
    assert synopsis.kind == "preformatted"
