"""Sentence vectors of chunks (knowledge/sentences.py); the database deletes them with their chunk."""

import django.db.models.deletion
import pgvector.django.indexes
import pgvector.django.vector
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agentmemory', '0022_context_feedback_usage_summary_fields'),
    ]

    operations = [
        migrations.CreateModel(
            name='ChunkSentence',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveSmallIntegerField(help_text='Order of the sentence in its chunk.', verbose_name='position')),
                ('embedding', pgvector.django.vector.VectorField(blank=True, dimensions=384, editable=False, help_text='Passage vector of heading path + sentence.', null=True, verbose_name='embedding')),
                ('embedding_model', models.CharField(help_text='Model that produced the embedding.', max_length=200, verbose_name='embedding model')),
                ('chunk', models.ForeignKey(db_constraint=False, db_index=False, help_text='The chunk the sentence is cut from.', on_delete=django.db.models.deletion.DO_NOTHING, related_name='sentences', to='agentmemory.chunk', verbose_name='chunk')),
            ],
            options={
                'verbose_name': 'chunk sentence',
                'verbose_name_plural': 'chunk sentences',
                'ordering': ['chunk_id', 'position'],
                'indexes': [pgvector.django.indexes.HnswIndex(ef_construction=64, fields=['embedding'], m=16, name='am_chunksent_embedding_hnsw', opclasses=['vector_cosine_ops'])],
                'constraints': [models.UniqueConstraint(fields=('chunk', 'position'), name='am_chunksent_chunk_position_uniq')],
            },
        ),
        migrations.RunSQL(
            "ALTER TABLE agentmemory_chunksentence ADD CONSTRAINT am_chunksent_chunk_fk FOREIGN KEY (chunk_id) "
            "REFERENCES agentmemory_chunk (id) ON DELETE CASCADE",
            "ALTER TABLE agentmemory_chunksentence DROP CONSTRAINT IF EXISTS am_chunksent_chunk_fk",
        ),
    ]
