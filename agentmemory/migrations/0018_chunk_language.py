"""Each chunk's language, and the active chunks per language of each base (cross-lingual search).

The backfill reads every chunk's text once (``text.language.language_of``, the rule ingest uses) and then
counts each base's active chunks per language; on a large table it takes about a minute per million
chunks.
"""
from django.db import migrations, models

BATCH = 2000


def backfill(apps, schema_editor):
    from agentmemory.text.language import language_of

    Chunk = apps.get_model("agentmemory", "Chunk")
    Stats = apps.get_model("agentmemory", "KnowledgeBaseStats")
    last = 0
    while True:
        rows = list(Chunk.objects.filter(pk__gt=last).order_by("pk").values_list("pk", "heading_path", "text")[:BATCH])
        if not rows:
            break
        by_language: dict[str, list[int]] = {}
        for pk, heading_path, text in rows:
            by_language.setdefault(language_of(f"{heading_path}\n{text[:2000]}", default=""), []).append(pk)
        for language, pks in by_language.items():
            if language:
                Chunk.objects.filter(pk__in=pks).update(language=language)
        last = rows[-1][0]
    for stats in Stats.objects.all():
        active = Chunk.objects.filter(knowledge_base_id=stats.knowledge_base_id, status="active")
        stats.chunks_zh = active.filter(language="zh").count()
        stats.chunks_en = active.filter(language="en").count()
        stats.save(update_fields=["chunks_zh", "chunks_en"])


class Migration(migrations.Migration):

    dependencies = [
        ("agentmemory", "0017_memory_test_cases"),
    ]

    operations = [
        migrations.AddField(
            model_name="chunk",
            name="language",
            field=models.CharField(blank=True, db_default="", default="", max_length=8, verbose_name="language",
                                   help_text='"zh" or "en": the language the text is written in (cross-lingual search).'),
        ),
        migrations.AddField(
            model_name="knowledgebasestats",
            name="chunks_zh",
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name="Chinese chunks",
                                              help_text="Active chunks written in Chinese (the vector channel's languages)."),
        ),
        migrations.AddField(
            model_name="knowledgebasestats",
            name="chunks_en",
            field=models.PositiveIntegerField(db_default=0, default=0, verbose_name="English chunks",
                                              help_text="Active chunks written in English."),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True),
    ]
