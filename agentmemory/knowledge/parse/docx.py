"""DOCX: paragraphs, headings by style, tables as blocks."""
from __future__ import annotations

import io
import re

from ...exceptions import InvalidInput
from .document import Builder, ParsedDocument, require, table_text

_DOCX_HEADING_RE = re.compile(r"^(?:heading|标题)\s*(\d)$", re.IGNORECASE)


def parse_docx(data: bytes) -> ParsedDocument:
    """Paragraphs in body order; "Heading N"/"Title" styles as headings; tables as unbreakable blocks."""
    docx = require("docx", "DOCX")
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:
        raise InvalidInput(f"The DOCX cannot be read: {exc}", field="file") from exc
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    builder = Builder()
    body = document.element.body
    for element in body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(element, document)
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            match = _DOCX_HEADING_RE.match(style.strip())
            if match:
                builder.heading(int(match.group(1)), paragraph.text)
            elif style.strip().lower() == "title":
                builder.heading(1, paragraph.text)
            else:
                builder.paragraph(paragraph.text)
        elif tag == "tbl":
            table = Table(element, document)
            rows = []
            for row in table.rows:
                cells = []
                for cell in row.cells:
                    value = " ".join(cell.text.split())
                    if not cells or cells[-1] != value:  # merged cells repeat; keep one
                        cells.append(value)
                rows.append(cells)
            builder.block(table_text(rows))
    title = (document.core_properties.title or "") if document.core_properties else ""
    return builder.result(title)
