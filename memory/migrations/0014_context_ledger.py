"""The context injection ledger, and the text index recall reads current compiled truths
through (docs/context.md, docs/recall.md)."""

import django.db.models.deletion
from django.db import migrations, models

import memory.clock


class Migration(migrations.Migration):
    dependencies = [("memory", "0012_compiled_truth")]

    operations = [
        migrations.CreateModel(
            name="ContextInjection",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("agent", models.CharField(max_length=200)),
                ("session", models.CharField(max_length=200)),
                ("digest", models.CharField(max_length=32)),
                ("count", models.PositiveIntegerField(default=1)),
                ("first_at", models.DateTimeField(default=memory.clock.now)),
                ("last_at", models.DateTimeField(default=memory.clock.now)),
                ("entity", models.ForeignKey(db_index=False,
                                             on_delete=django.db.models.deletion.CASCADE,
                                             related_name="+", to="memory.entity")),
            ],
            options={"constraints": [models.UniqueConstraint(
                fields=("agent", "session", "entity"), name="context_injection_unique")]},
        ),
        migrations.RunSQL(
            "CREATE INDEX compiled_truth_search ON memory_compiledtruth "
            "USING gin (cortex_tsv(markdown)) WHERE superseded_by_id IS NULL",
            "DROP INDEX compiled_truth_search"),
    ]
