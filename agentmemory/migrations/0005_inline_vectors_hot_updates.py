"""Vectors stored in their rows, and memory rows that can be updated in place.

Storage MAIN for chunk and memory embeddings: PostgreSQL moves a row's largest values out of line
once the row passes about 2 KB, and a 384-dimension vector is usually the largest, so an exact scan
of a small knowledge base (or of one user's memories) fetched every vector from the TOAST table (about
eight buffer reads a row). With MAIN the text and search vector are compressed or moved out first and
the vector stays in the row. Applies to rows written from now on; ``VACUUM FULL`` on the two tables
applies it to stored rows.

Memory rows that can be updated in place: recall's access-statistics UPDATE touches no indexed
column, so PostgreSQL can write it as a HOT update (no new entry in any index, the HNSW index
included) when the row's page has room. Fill factor 70 leaves that room on pages written from now
on; ``VACUUM FULL agentmemory_memoryitem`` applies it to rows already stored. The single-column
indexes on user_id and status go: (user_id, status) and (user_id, key) serve every scoped read.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agentmemory', '0004_keyword_postings'),
    ]

    operations = [
        migrations.RunSQL("ALTER TABLE agentmemory_chunk ALTER COLUMN embedding SET STORAGE MAIN",
                          reverse_sql="ALTER TABLE agentmemory_chunk ALTER COLUMN embedding SET STORAGE EXTERNAL"),
        migrations.RunSQL("ALTER TABLE agentmemory_memoryitem ALTER COLUMN embedding SET STORAGE MAIN",
                          reverse_sql="ALTER TABLE agentmemory_memoryitem ALTER COLUMN embedding SET STORAGE EXTERNAL"),
        migrations.RunSQL("ALTER TABLE agentmemory_memoryitem SET (fillfactor = 70)",
                          reverse_sql="ALTER TABLE agentmemory_memoryitem RESET (fillfactor)"),
        migrations.AlterField(
            model_name='memoryitem',
            name='status',
            field=models.CharField(choices=[('active', 'active'), ('superseded', 'superseded'), ('cold', 'cold'), ('deleted', 'deleted')], default='active', max_length=20, verbose_name='status'),
        ),
        migrations.AlterField(
            model_name='memoryitem',
            name='user_id',
            field=models.CharField(help_text='Opaque id of the end user, given by the caller.', max_length=255, verbose_name='user id'),
        ),
    ]
