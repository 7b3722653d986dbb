"""Recall's in-process index keeps a small user's whole rows (every column but the vector and the words), so
a change of any column now gives the row a new revision, but of the access statistics: recalls raise
those on every call, and recall reads them live with each question (migration 0012's trigger watched
only what the index scored with, so an edit of, say, the tags alone left a copy of the row stale).

tests/memory/test_recall_index.py checks that the trigger watches every column of the model but these.
"""

from django.db import migrations

#: Never give a new revision: the key, the revision itself and what recalls write (memory/access.py).
UNWATCHED = ("id", "rev", "access_count", "last_accessed_at")
COLUMNS = ("user_id", "agent_id", "type", "key", "content", "value", "source", "confidence", "status", "valid_from",
           "valid_to", "created_at", "updated_at", "superseded_at", "supersedes_id", "session_id", "turn_id",
           "excerpt", "provenance", "tags", "tags_key", "embedding", "embedding_model", "search_vector",
           "term_count", "idempotency_key")
OLD_COLUMNS = ("user_id", "status", "source", "agent_id", "session_id", "turn_id", "term_count", "embedding",
               "embedding_model", "search_vector", "content", "confidence", "valid_from", "created_at")


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
        ('agentmemory', '0014_chunk_indexes'),
    ]

    operations = [
        migrations.RunSQL(sql=_trigger(COLUMNS), reverse_sql=_trigger(OLD_COLUMNS)),
    ]
