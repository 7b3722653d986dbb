"""Keyword postings lose their foreign key to the chunk; a statement trigger on the chunk table drops them.

Migration 0004 made ``chunk_id`` reference the chunk ON DELETE CASCADE. The foreign key checked
every posting inserted with a lookup of its chunk (a row-level trigger): publishing a batch of ~20
chunks inserts ~2,500 postings (about 114 a cmrc2018 chunk), and those checks were most of the
import's database time (measured in docs/knowledge.md). The cascade itself is kept as a statement-level trigger: a DELETE of chunks
(a purged document, a deleted knowledge base, raw SQL) deletes their postings in the same statement's
transaction, through the (chunk_id, term) index. What the foreign key also guaranteed, that no posting
names a chunk deleted meanwhile, is kept by the writers: postings are inserted only from the chunk
rows themselves, with those rows locked (``keywords._insert_postings``), so a concurrent DELETE waits
for the insert's transaction and its trigger then sees the new postings.
"""

from django.db import migrations

FORWARD = """
ALTER TABLE agentmemory_keywordposting DROP CONSTRAINT IF EXISTS am_posting_chunk_fk;
CREATE OR REPLACE FUNCTION am_chunk_drop_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM agentmemory_keywordposting p USING am_gone_chunks g WHERE p.chunk_id = g.id;
    RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS am_chunk_drop_postings ON agentmemory_chunk;
CREATE TRIGGER am_chunk_drop_postings AFTER DELETE ON agentmemory_chunk
    REFERENCING OLD TABLE AS am_gone_chunks
    FOR EACH STATEMENT EXECUTE FUNCTION am_chunk_drop_postings();
"""

REVERSE = """
DROP TRIGGER IF EXISTS am_chunk_drop_postings ON agentmemory_chunk;
DROP FUNCTION IF EXISTS am_chunk_drop_postings();
DELETE FROM agentmemory_keywordposting p WHERE NOT EXISTS (SELECT 1 FROM agentmemory_chunk c WHERE c.id = p.chunk_id);
ALTER TABLE agentmemory_keywordposting
    ADD CONSTRAINT am_posting_chunk_fk FOREIGN KEY (chunk_id) REFERENCES agentmemory_chunk (id) ON DELETE CASCADE;
"""


class Migration(migrations.Migration):

    dependencies = [
        ("agentmemory", "0012_memory_rev_details"),
    ]

    operations = [
        migrations.RunSQL(sql=FORWARD, reverse_sql=REVERSE),
    ]
