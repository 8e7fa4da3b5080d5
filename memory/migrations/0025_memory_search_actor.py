"""A memory's search vector holds who said it too (the actor's English and French stems,
weight C): a conversation's turn found by its speaker's name when its text does not say it.
A generated column's expression cannot be altered in place (before PostgreSQL 17): it is
dropped with its index and added again, computed for every row."""

import django.contrib.postgres.search
import django.db.models.expressions
from django.db import migrations, models

TEXT = ("setweight(to_tsvector('cortex_en'::regconfig, coalesce(text, '')), 'A') || "
        "setweight(to_tsvector('cortex_fr'::regconfig, coalesce(text, '')), 'B')")
ACTOR = (" || setweight(to_tsvector('cortex_en'::regconfig, coalesce(actor, '')), 'C') || "
         "setweight(to_tsvector('cortex_fr'::regconfig, coalesce(actor, '')), 'C')")


def _column(expression: str) -> str:
    return (f"ALTER TABLE memory_memory DROP COLUMN search; "
            f"ALTER TABLE memory_memory ADD COLUMN search tsvector "
            f"GENERATED ALWAYS AS ({expression}) STORED; "
            f"CREATE INDEX memory_search ON memory_memory USING gin (search);")


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0024_event_txid_default_stamp"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(_column(TEXT + ACTOR), _column(TEXT))],
            state_operations=[migrations.AlterField(
                model_name="memory",
                name="search",
                field=models.GeneratedField(
                    db_persist=True,
                    expression=django.db.models.expressions.RawSQL(TEXT + ACTOR, []),
                    output_field=django.contrib.postgres.search.SearchVectorField()),
            )],
        ),
    ]
