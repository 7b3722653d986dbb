"""Retrieval: a GIN index on (knowledge base, search vector), so keyword postings are looked up per base.

The plain GIN index on search_vector returns matches of every knowledge base in the table; with one
large base beside a small one, the small one's keyword search reads the large one's postings. With
btree_gin the base id is part of the index key. Hand-written: the autodetector cannot express it.
"""
from django.contrib.postgres.operations import BtreeGinExtension
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("agentmemory", "0002_schema")]

    operations = [
        BtreeGinExtension(),
        migrations.RunSQL(
            "CREATE INDEX IF NOT EXISTS am_chunk_kb_search_gin ON agentmemory_chunk "
            "USING gin (knowledge_base_id, search_vector)",
            reverse_sql="DROP INDEX IF EXISTS am_chunk_kb_search_gin",
        ),
    ]
