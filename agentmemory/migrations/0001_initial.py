"""Foundation: the vector extension, API keys and the shared audit table."""

import django.utils.timezone
from django.db import migrations, models
from pgvector.django import VectorExtension


def require_pgvector(apps, schema_editor):
    """Fail with a clear message, not a SQL error, when the server has no pgvector."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        if cursor.fetchone() is None:
            raise RuntimeError(
                "agentmemory.E006: pgvector is not installed on this PostgreSQL server. Install pgvector >= 0.7 "
                "there, or unset DATABASE_URL to use the embedded PostgreSQL that ships it."
            )


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        migrations.RunPython(require_pgvector, migrations.RunPython.noop),
        VectorExtension(),
        migrations.CreateModel(
            name='ApiKey',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text='Who or what uses this key.', max_length=100, unique=True, verbose_name='name')),
                ('prefix', models.CharField(db_index=True, editable=False, help_text='First characters of the key, shown to tell keys apart; the key itself is never stored.', max_length=16, verbose_name='prefix')),
                ('key_hash', models.CharField(editable=False, help_text='SHA-256 of the full key.', max_length=64, unique=True, verbose_name='key hash')),
                ('agent_ids', models.JSONField(blank=True, default=list, help_text='Agent ids this key may act for; empty means every agent.', verbose_name='agents')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created at')),
                ('last_used_at', models.DateTimeField(blank=True, editable=False, null=True, verbose_name='last used at')),
                ('revoked_at', models.DateTimeField(blank=True, help_text='Set to revoke the key; requests with it then get 401.', null=True, verbose_name='revoked at')),
            ],
            options={
                'verbose_name': 'API key',
                'verbose_name_plural': 'API keys',
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='AuditEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now, editable=False, verbose_name='created at')),
                ('actor', models.CharField(blank=True, help_text='api_key:NAME, admin:USERNAME, task:NAME or system.', max_length=200, verbose_name='actor')),
                ('action', models.CharField(help_text='create, merge, supersede, edit, delete, ...', max_length=50, verbose_name='action')),
                ('reason', models.CharField(blank=True, max_length=500, verbose_name='reason')),
                ('object_type', models.CharField(help_text='e.g. memory, document.', max_length=50, verbose_name='object type')),
                ('object_id', models.CharField(max_length=64, verbose_name='object id')),
                ('user_id', models.CharField(blank=True, db_index=True, help_text='The end user the object belongs to, when it belongs to one.', max_length=255, verbose_name='user id')),
                ('before', models.JSONField(blank=True, null=True, verbose_name='before')),
                ('after', models.JSONField(blank=True, null=True, verbose_name='after')),
            ],
            options={
                'verbose_name': 'audit event',
                'verbose_name_plural': 'audit events',
                'ordering': ['-created_at', '-id'],
                'indexes': [models.Index(fields=['object_type', 'object_id'], name='am_audit_object_idx')],
            },
        ),
    ]
