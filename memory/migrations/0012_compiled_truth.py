"""Layer 3: compiled-truth versions, chained by `superseded_by`, one current per entity."""

import django.contrib.postgres.fields
import django.db.models.deletion
from django.db import migrations, models

import memory.clock


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0013_recall_search"),
    ]

    operations = [
        migrations.CreateModel(
            name="CompiledTruth",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("version", models.PositiveIntegerField()),
                ("markdown", models.TextField()),
                ("as_of", models.DateTimeField(help_text="The `now` it was compiled at.")),
                ("strength", models.FloatField(
                    blank=True, null=True, help_text="Strength at `as_of`; empty when pinned.")),
                ("pinned", models.BooleanField(default=False)),
                ("facts_count", models.PositiveIntegerField(default=0)),
                ("facts_digest", models.CharField(blank=True, default="", max_length=32)),
                ("relations_count", models.PositiveIntegerField(default=0)),
                ("relations_digest", models.CharField(blank=True, default="", max_length=32)),
                ("memories_count", models.PositiveIntegerField(default=0)),
                ("memories_digest", models.CharField(blank=True, default="", max_length=32)),
                ("reasons", django.contrib.postgres.fields.ArrayField(
                    base_field=models.CharField(max_length=32), blank=True, default=list,
                    help_text="Why it was compiled: first, strength, facts, ...", size=None)),
                ("trigger", models.CharField(choices=[("sleep_cycle", "sleep cycle"),
                                                      ("rebuild", "rebuild (command)"),
                                                      ("api", "rebuild (API)")], max_length=16)),
                ("created_at", models.DateTimeField(default=memory.clock.now)),
                ("entity", models.ForeignKey(db_index=False,
                                             on_delete=django.db.models.deletion.PROTECT,
                                             related_name="compiled_truths", to="memory.entity")),
                ("superseded_by", models.OneToOneField(
                    blank=True, help_text="The next version; empty on the current one.", null=True,
                    on_delete=django.db.models.deletion.PROTECT, related_name="supersedes",
                    to="memory.compiledtruth")),
            ],
            options={
                "verbose_name": "compiled truth version",
                "constraints": [
                    models.UniqueConstraint(fields=("entity", "version"),
                                            name="compiled_truth_version_unique"),
                    models.UniqueConstraint(condition=models.Q(("superseded_by", None)),
                                            fields=("entity",), name="compiled_truth_one_current"),
                ],
            },
        ),
    ]
