"""Recall's in-process index also holds each memory's keyword postings and what its score needs but
the access statistics (confidence, the speaker of a dialogue turn, its date): a change of the words,
the content, the confidence or the dates now gives the row a new revision too (migration 0011's
trigger only watched the scope columns, the term count and the vector). Access statistics still
give none: recalls raise them on every call, and recall reads them live.
"""

from django.db import migrations

OLD_COLUMNS = ("user_id", "status", "source", "agent_id", "session_id", "turn_id", "term_count", "embedding",
               "embedding_model")
COLUMNS = (*OLD_COLUMNS, "search_vector", "content", "confidence", "valid_from", "created_at")


def _trigger(columns: tuple[str, ...]) -> str:
    changed = " OR ".join(f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in columns)
    return f"""
        DROP TRIGGER IF EXISTS am_memory_rev_update ON agentmemory_memoryitem;
        CREATE TRIGGER am_memory_rev_update BEFORE UPDATE OF {", ".join(columns)} ON agentmemory_memoryitem
            FOR EACH ROW WHEN ({changed})
            EXECUTE FUNCTION am_memory_rev_next();
        """


class Migration(migrations.Migration):

    dependencies = [
        ('agentmemory', '0011_memory_rev'),
    ]

    operations = [
        migrations.RunSQL(sql=_trigger(COLUMNS), reverse_sql=_trigger(OLD_COLUMNS)),
    ]
