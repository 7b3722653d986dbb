"""Drop the chunk indexes that composite ones already cover; index reusable-vector lookups by base and hash.

An import writes each chunk row three times (insert, vectors, publish), and each write of an indexed
column updates every index of the row. Chunk(knowledge_base) is covered by am_chunk_kb_status_idx,
Chunk(version) by am_chunk_version_position_uniq, KnowledgeTermStat(knowledge_base) by
am_termstat_kb_term_uniq; Chunk(content_hash) and its varchar_pattern_ops twin (never used: no LIKE on a
hash) become one (knowledge_base, content_hash) index, the shape of embed.reusable_vectors' query.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agentmemory', '0013_posting_delete_trigger'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='chunk',
            index=models.Index(fields=['knowledge_base', 'content_hash'], name='am_chunk_kb_hash_idx'),
        ),
        migrations.AlterField(
            model_name='chunk',
            name='content_hash',
            field=models.CharField(help_text='SHA-256 of heading path and text; equal hashes reuse the embedding.', max_length=64, verbose_name='content hash'),
        ),
        migrations.AlterField(
            model_name='chunk',
            name='knowledge_base',
            field=models.ForeignKey(db_index=False, help_text='Denormalised from the document, for filtering searches.', on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='agentmemory.knowledgebase', verbose_name='knowledge base'),
        ),
        migrations.AlterField(
            model_name='chunk',
            name='version',
            field=models.ForeignKey(db_index=False, help_text='Document version the chunk was cut from.', on_delete=django.db.models.deletion.CASCADE, related_name='chunks', to='agentmemory.documentversion', verbose_name='version'),
        ),
        migrations.AlterField(
            model_name='knowledgetermstat',
            name='knowledge_base',
            field=models.ForeignKey(db_index=False, help_text='Knowledge base of the term.', on_delete=django.db.models.deletion.CASCADE, related_name='term_stats', to='agentmemory.knowledgebase', verbose_name='knowledge base'),
        ),
    ]
