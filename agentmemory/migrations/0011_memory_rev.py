"""A revision number on every memory, kept by a trigger, for recall's in-process index (memory/snapshot.py).

Every INSERT, and every UPDATE that changes what the index holds of a row (user, status, source,
agent, session, turn, term count, vector, vector model), gives the row the next value of a sequence,
whatever writes it (the ORM, bulk_create, raw SQL). A user's count, sum and maximum of ``rev`` come
from the covering scope index alone; they change with any such write, so a process can tell whether
its copy of the user's rows is current without reading them. The sequence belongs to no column, so
resetting the table's identities (test flushes) never reissues a revision. Existing rows keep 0.
"""

from django.db import migrations, models

COLUMNS = ("user_id", "status", "source", "agent_id", "session_id", "turn_id", "term_count", "embedding",
           "embedding_model")
CHANGED = " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in COLUMNS)


class Migration(migrations.Migration):

    dependencies = [
        ('agentmemory', '0010_memory_terms'),
    ]

    operations = [
        migrations.AddField(
            model_name='memoryitem',
            name='rev',
            field=models.BigIntegerField(default=0, editable=False, verbose_name='revision'),
        ),
        migrations.RemoveIndex(
            model_name='memoryitem',
            name='am_memory_scope_idx',
        ),
        migrations.AddIndex(
            model_name='memoryitem',
            index=models.Index(fields=['user_id', 'session_id', 'turn_id'],
                               include=('status', 'source', 'agent_id', 'term_count', 'id', 'rev'),
                               name='am_memory_scope_idx'),
        ),
        migrations.RunSQL(
            sql=f"""
            CREATE SEQUENCE am_memory_rev_seq;
            CREATE FUNCTION am_memory_rev_next() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                NEW.rev := nextval('am_memory_rev_seq');
                RETURN NEW;
            END $$;
            CREATE TRIGGER am_memory_rev_insert BEFORE INSERT ON agentmemory_memoryitem
                FOR EACH ROW EXECUTE FUNCTION am_memory_rev_next();
            CREATE TRIGGER am_memory_rev_update BEFORE UPDATE OF {", ".join(COLUMNS)} ON agentmemory_memoryitem
                FOR EACH ROW WHEN ({CHANGED})
                EXECUTE FUNCTION am_memory_rev_next();
            """,
            reverse_sql="""
            DROP TRIGGER IF EXISTS am_memory_rev_update ON agentmemory_memoryitem;
            DROP TRIGGER IF EXISTS am_memory_rev_insert ON agentmemory_memoryitem;
            DROP FUNCTION IF EXISTS am_memory_rev_next();
            DROP SEQUENCE IF EXISTS am_memory_rev_seq;
            """,
        ),
    ]
