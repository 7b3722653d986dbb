"""Keyword postings: an inverted index (term -> chunk, tf, length) for the BM25 keyword channel.

Hand-written database side (the model state is what the autodetector would write):
- the primary key (knowledge_base_id, term, chunk_id) INCLUDEs tf and length, so scoring a query
  term is one index-only range scan;
- chunk_id references the chunk ON DELETE CASCADE, so deleting a document or a knowledge base drops
  its postings in the database (Django's collector would load them row by row);
- a second index, (chunk_id, term) INCLUDE (tf, length), serves that cascade, deprecation, and the
  scoring of a query's common terms for the best candidates (index-only, a few entries per chunk);
- the postings of the active chunks already stored are built here. Chunks published by code older
  than this migration while it runs get no postings: after a rolling deploy, run
  ``python manage.py agentmemory_reembed --kb SLUG --keywords`` (or ``rebuild_keyword_stats``);
- the GIN indexes on chunk search vectors, which only the old keyword channel read, are dropped.
"""
import django.db.models.deletion
from django.db import migrations, models

CREATE = """
CREATE TABLE agentmemory_keywordposting (
    knowledge_base_id bigint NOT NULL,
    term text NOT NULL,
    chunk_id bigint NOT NULL,
    tf smallint NOT NULL CHECK (tf >= 0),
    length integer NOT NULL CHECK (length >= 0)
);
INSERT INTO agentmemory_keywordposting (knowledge_base_id, term, chunk_id, tf, length)
SELECT c.knowledge_base_id, u.lexeme, c.id, coalesce(array_length(u.positions, 1), 1), c.term_count
FROM agentmemory_chunk c CROSS JOIN LATERAL unnest(c.search_vector) u
WHERE c.status = 'active' AND c.search_vector IS NOT NULL;
-- Indexes and the foreign key after the backfill: building them once is much faster than
-- maintaining them row by row.
ALTER TABLE agentmemory_keywordposting
    ADD CONSTRAINT am_posting_pk PRIMARY KEY (knowledge_base_id, term, chunk_id) INCLUDE (tf, length),
    ADD CONSTRAINT am_posting_chunk_fk FOREIGN KEY (chunk_id) REFERENCES agentmemory_chunk (id) ON DELETE CASCADE;
CREATE INDEX am_posting_chunk_idx ON agentmemory_keywordposting (chunk_id, term) INCLUDE (tf, length);
DROP INDEX IF EXISTS am_chunk_kb_search_gin;
"""

REVERSE = """
DROP TABLE IF EXISTS agentmemory_keywordposting;
CREATE INDEX IF NOT EXISTS am_chunk_kb_search_gin ON agentmemory_chunk USING gin (knowledge_base_id, search_vector);
"""


class Migration(migrations.Migration):
    dependencies = [("agentmemory", "0003_retrieval_kb_search_gin")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(CREATE, reverse_sql=REVERSE)],
            state_operations=[
                migrations.CreateModel(
                    name="KeywordPosting",
                    fields=[
                        ("pk", models.CompositePrimaryKey("knowledge_base_id", "term", "chunk_id", blank=True,
                                                          editable=False, primary_key=True, serialize=False)),
                        ("term", models.TextField(help_text="A keyword token, as stored in the chunk's search vector.",
                                                  verbose_name="term")),
                        ("tf", models.PositiveSmallIntegerField(help_text="Occurrences of the term in the chunk.",
                                                                verbose_name="term frequency")),
                        ("length", models.PositiveIntegerField(help_text="The chunk's term count (BM25 |d|).",
                                                               verbose_name="chunk length")),
                        ("chunk", models.ForeignKey(db_constraint=False, help_text="The active chunk containing the term.",
                                                    on_delete=django.db.models.deletion.DO_NOTHING, related_name="+",
                                                    to="agentmemory.chunk", verbose_name="chunk")),
                        ("knowledge_base", models.ForeignKey(db_constraint=False, help_text="Knowledge base of the chunk.",
                                                             on_delete=django.db.models.deletion.DO_NOTHING,
                                                             related_name="+", to="agentmemory.knowledgebase",
                                                             verbose_name="knowledge base")),
                    ],
                    options={"verbose_name": "keyword posting", "verbose_name_plural": "keyword postings"},
                ),
            ],
        ),
        migrations.RemoveIndex(model_name="chunk", name="am_chunk_search_vector_gin"),
    ]
