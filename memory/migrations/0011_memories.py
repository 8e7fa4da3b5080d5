import django.contrib.postgres.fields
import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
import django.db.models.expressions
import pgvector.django.indexes
import pgvector.django.vector
from django.db import migrations, models

import memory.clock

SEARCH_SQL = (
    "setweight(to_tsvector('cortex_en'::regconfig, coalesce(text, '')), 'A') || "
    "setweight(to_tsvector('cortex_fr'::regconfig, coalesce(text, '')), 'B')"
)
MEMORY_TYPES = [("episodic", "Episodic"), ("semantic", "Semantic"), ("procedural", "Procedural")]
REFERENTS = [("self", "Self"), ("agent", "Agent"), ("other", "Other"), ("object", "Object"),
             ("abstract", "Abstract")]
VALENCES = [("neutral", "Neutral"), ("positive", "Positive"), ("negative", "Negative"),
            ("critical", "Critical")]
SCOPES = [("events:write", "Events Write"), ("events:read", "Events Read"),
          ("observations:write", "Observations Write"), ("memories:write", "Memories Write"),
          ("memories:read", "Memories Read"), ("recall:read", "Recall Read"),
          ("context:read", "Context Read"), ("feedback:write", "Feedback Write"),
          ("working-set", "Working Set"), ("operator", "Operator")]


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0011_text_search"),
    ]

    operations = [
        migrations.AlterField(
            model_name="agent",
            name="scopes",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(choices=SCOPES, max_length=32), default=list,
                size=None),
        ),
        migrations.CreateModel(
            name="Memory",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("source", models.TextField(
                    help_text="Who stored it: api:<agent>, operator:<username>.")),
                ("source_id", models.TextField(help_text="The event's source_id.")),
                ("text", models.TextField()),
                ("actor", models.TextField(blank=True, default="")),
                ("project", models.TextField(blank=True, default="")),
                ("occurred_at", models.DateTimeField()),
                ("metadata", models.JSONField(blank=True, default=dict)),
                ("language", models.CharField(blank=True, default="", max_length=16)),
                ("memory_type", models.CharField(choices=MEMORY_TYPES, max_length=12)),
                ("referent", models.CharField(choices=REFERENTS, max_length=12)),
                ("base", models.FloatField()),
                ("half_life_days", models.FloatField()),
                ("valence", models.CharField(choices=VALENCES, default="neutral",
                                             max_length=10)),
                ("pinned", models.BooleanField(default=False)),
                ("retrieval_count", models.PositiveIntegerField(default=0)),
                ("last_reinforced_at", models.DateTimeField()),
                ("search", models.GeneratedField(
                    db_persist=True,
                    expression=django.db.models.expressions.RawSQL(SEARCH_SQL, []),
                    output_field=django.contrib.postgres.search.SearchVectorField())),
                ("embedded", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(default=memory.clock.now)),
                ("event", models.OneToOneField(
                    help_text="The raw event it came from (provenance).",
                    on_delete=django.db.models.deletion.PROTECT, related_name="+",
                    to="memory.memoryevent")),
                ("namespace", models.ForeignKey(
                    db_index=False, on_delete=django.db.models.deletion.PROTECT,
                    related_name="+", to="memory.namespace")),
                ("observation", models.ForeignKey(
                    blank=True, null=True, on_delete=django.db.models.deletion.PROTECT,
                    related_name="+", to="memory.observation")),
            ],
            options={
                "verbose_name_plural": "memories",
                "indexes": [
                    django.contrib.postgres.indexes.GinIndex(fields=["search"],
                                                             name="memory_search"),
                    models.Index(fields=["project", "occurred_at"], name="memory_project_time"),
                    models.Index(fields=["occurred_at", "id"], name="memory_time"),
                    models.Index(condition=models.Q(("embedded", False)), fields=["id"],
                                 name="memory_not_embedded"),
                ],
            },
        ),
        migrations.CreateModel(
            name="MemoryEmbedding",
            fields=[
                ("memory", models.OneToOneField(
                    on_delete=django.db.models.deletion.CASCADE, primary_key=True,
                    related_name="embedding", serialize=False, to="memory.memory")),
                ("vector", pgvector.django.vector.VectorField(dimensions=384)),
                ("model", models.CharField(max_length=100)),
                ("dimension", models.PositiveSmallIntegerField()),
                ("embedded_at", models.DateTimeField(default=memory.clock.now)),
            ],
            options={
                "indexes": [pgvector.django.indexes.HnswIndex(
                    ef_construction=64, fields=["vector"], m=16, name="memory_embedding_hnsw",
                    opclasses=["vector_cosine_ops"])],
            },
        ),
        migrations.CreateModel(
            name="MemoryMention",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("role", models.CharField(max_length=32)),
                ("surface", models.CharField(blank=True, default="", max_length=300)),
                ("value", models.CharField(
                    blank=True, default="", max_length=64,
                    help_text="A date or time, ISO 8601, for date mentions.")),
                ("entity", models.ForeignKey(
                    on_delete=django.db.models.deletion.PROTECT,
                    related_name="memory_mentions", to="memory.entity")),
                ("memory", models.ForeignKey(
                    db_index=False, on_delete=django.db.models.deletion.CASCADE,
                    related_name="mentions", to="memory.memory")),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("memory", "entity", "role"),
                                                        name="memory_mention_unique")],
            },
        ),
    ]
