"""HTML: rendered to text with blank lines between blocks; headings, tables and <pre> kept as structure."""
from __future__ import annotations

import re

from .document import Builder, ParsedDocument, normalize_text, require, table_text

_HTML_BLOCKS = {"p", "li", "dt", "dd", "blockquote", "figcaption", "caption", "address"}
_HTML_SKIP = {"script", "style", "noscript", "template", "head", "nav", "footer", "svg"}


def parse_html(html: str) -> ParsedDocument:
    """h1-h6 as headings, <pre> and <table> as unbreakable blocks, other block elements as paragraphs."""
    bs4 = require("bs4", "HTML")
    soup = bs4.BeautifulSoup(normalize_text(html), "html.parser")
    doc_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for br in soup.find_all("br"):
        br.replace_with("\n")
    builder = Builder()
    root = soup.body or soup

    def walk(node) -> None:
        for child in node.children:
            if isinstance(child, bs4.NavigableString):
                if isinstance(child, bs4.Comment | bs4.Doctype | bs4.Declaration | bs4.ProcessingInstruction):
                    continue
                builder.paragraph(str(child))
                continue
            name = (child.name or "").lower()
            if name in _HTML_SKIP:
                continue
            if re.fullmatch(r"h[1-6]", name):
                builder.heading(int(name[1]), _inline_text(child))
            elif name == "pre":
                builder.block(child.get_text())
            elif name == "table":
                rows = [[_inline_text(c) for c in tr.find_all(["th", "td"])]
                        for tr in child.find_all("tr")]
                builder.block(table_text(rows))
            elif name in _HTML_BLOCKS or not child.find(_BLOCK_TAGS):
                builder.paragraph(_inline_text(child))
            else:
                walk(child)

    walk(root)
    return builder.result(doc_title)


def _inline_text(node) -> str:
    """Text as a browser shows it: inline tags add no space (Chinese stays unbroken), whitespace collapses."""
    return " ".join(node.get_text().split())


_BLOCK_TAGS = ["p", "div", "section", "article", "main", "ul", "ol", "li", "table", "pre", "blockquote",
               "h1", "h2", "h3", "h4", "h5", "h6", "dl", "header", "aside", "figure"]
