"""Link-preview tags added after the pages (tinkernomics.site.postbuild.previews), on toy pages."""

from __future__ import annotations

import re

from tinkernomics.site.postbuild.previews import preview, tag_page

BASE = "https://example.org/sub/"
PAGE = """<html><head><title>GRPO - tinker-nomics</title>
<meta name="description" content="Site &amp; description">
<link rel="canonical" href="https://example.org/sub/algorithms/grpo/">
</head><body><nav><p>not this</p></nav><article><h1>GRPO</h1><p></p>
<p>Group <em>Relative</em> &lt;Policy&gt; "Optimization"</p>
<div data-tn-chart="scalerl-grpo"></div></article></body></html>"""


def test_a_chart_page_previews_its_first_paragraph_and_its_chart_card() -> None:
    found = preview(PAGE, "algorithms/grpo/", BASE)
    assert found.title == "GRPO - tinker-nomics"
    assert found.description == 'Group Relative <Policy> "Optimization"'
    assert found.url == "https://example.org/sub/algorithms/grpo/"
    assert found.image == BASE + "embed/scalerl-grpo/card.png"
    tags = found.tags(BASE)
    assert 'content="Group Relative &lt;Policy&gt; &quot;Optimization&quot;"' in tags
    assert f'href="{BASE}embed/scalerl-grpo/oembed.json"' in tags


def test_twitter_reads_the_og_tags_and_gets_only_what_they_lack() -> None:
    tags = preview(PAGE, "algorithms/grpo/", BASE).tags(BASE)
    names = re.findall(r'<meta name="(twitter:[^"]+)"', tags)
    assert names == ["twitter:card", "twitter:image:alt"]  # title, description, image: og:'s
    for prop in ("og:title", "og:description", "og:image", "og:image:alt"):
        assert f'<meta property="{prop}" content="' in tags


def test_a_page_without_chart_or_text_uses_the_site_card_and_meta_description() -> None:
    bare = "<html><head><title>T</title><meta name=\"description\" content=\"Site &amp; d\">" \
           "</head><body><article><h1>T</h1></article></body></html>"
    found = preview(bare, "formulas/", BASE)
    assert (found.image, found.description, found.url) == (
        BASE + "assets/images/site-card.png", "Site & d", BASE + "formulas/")
    assert "oembed" not in found.tags(BASE)


def test_long_descriptions_are_cut_and_pages_are_tagged_once() -> None:
    long_page = PAGE.replace("Group", "word " * 200)
    text = tag_page(long_page, "a/", BASE)
    assert text != long_page and text.count('property="og:title"') == 1
    assert tag_page(text, "a/", BASE) == text  # a page that has its tags keeps them as they are
    description = preview(long_page, "a/", BASE).description
    assert len(description) == 300 and description.endswith("…")
    assert tag_page("<p>no head</p>", "frag.html", BASE) == "<p>no head</p>"
