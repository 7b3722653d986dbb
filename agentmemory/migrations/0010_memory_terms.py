"""Recall's keyword postings (MemoryTerm), kept by a trigger, and a covering index for a user's scope.

The trigger keeps one row per (memory, lexeme) with the lexeme's frequency, from search_vector, on
every INSERT, DELETE and change of search_vector or user_id: whatever writes the memory table (the
ORM, bulk_create, raw SQL) keeps the postings exact. Existing memories are backfilled here.
The scope index replaces am_memory_user_turn_idx (same key, more columns): recall reads a user's
statistics and dialogue windows from the index alone.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agentmemory', '0009_memory_turn_index'),
    ]

    operations = [
        migrations.CreateModel(
            name='MemoryTerm',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('user_id', models.CharField(max_length=255, verbose_name='user id')),
                ('lexeme', models.TextField(verbose_name='lexeme')),
                ('tf', models.PositiveIntegerField(verbose_name='term frequency')),
            ],
            options={
                'verbose_name': 'memory term',
                'verbose_name_plural': 'memory terms',
                'default_permissions': (),
            },
        ),
        migrations.RemoveIndex(
            model_name='memoryitem',
            name='am_memory_user_turn_idx',
        ),
        migrations.AddIndex(
            model_name='memoryitem',
            index=models.Index(fields=['user_id', 'session_id', 'turn_id'], include=('status', 'source', 'agent_id', 'term_count', 'id'), name='am_memory_scope_idx'),
        ),
        migrations.AddField(
            model_name='memoryterm',
            name='memory',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='agentmemory.memoryitem'),
        ),
        migrations.AddIndex(
            model_name='memoryterm',
            index=models.Index(fields=['user_id', 'lexeme'], include=('memory', 'tf'), name='am_memory_term_idx'),
        ),
        migrations.RunSQL(
            sql="""
            CREATE FUNCTION am_memory_terms_sync() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'INSERT' THEN
                    DELETE FROM agentmemory_memoryterm WHERE memory_id = OLD.id;
                END IF;
                IF TG_OP <> 'DELETE' AND NEW.search_vector IS NOT NULL THEN
                    INSERT INTO agentmemory_memoryterm (memory_id, user_id, lexeme, tf)
                    SELECT NEW.id, NEW.user_id, u.lexeme, coalesce(array_length(u.positions, 1), 1)
                    FROM unnest(NEW.search_vector) u;
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER am_memory_terms_insert AFTER INSERT OR DELETE ON agentmemory_memoryitem
                FOR EACH ROW EXECUTE FUNCTION am_memory_terms_sync();
            CREATE TRIGGER am_memory_terms_update AFTER UPDATE OF search_vector, user_id ON agentmemory_memoryitem
                FOR EACH ROW WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector
                                   OR OLD.user_id IS DISTINCT FROM NEW.user_id)
                EXECUTE FUNCTION am_memory_terms_sync();
            INSERT INTO agentmemory_memoryterm (memory_id, user_id, lexeme, tf)
                SELECT m.id, m.user_id, u.lexeme, coalesce(array_length(u.positions, 1), 1)
                FROM agentmemory_memoryitem m CROSS JOIN LATERAL unnest(m.search_vector) u;
            """,
            reverse_sql="""
            DROP TRIGGER IF EXISTS am_memory_terms_update ON agentmemory_memoryitem;
            DROP TRIGGER IF EXISTS am_memory_terms_insert ON agentmemory_memoryitem;
            DROP FUNCTION IF EXISTS am_memory_terms_sync();
            DELETE FROM agentmemory_memoryterm;
            """,
        ),
    ]
