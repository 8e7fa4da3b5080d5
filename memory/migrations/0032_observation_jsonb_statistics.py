"""ANALYZE stops sampling the observations' two jsonb columns, `actors` and `payload_typed`
(their statistics target 0; the reverse gives them the default target back).

Autovacuum analyzes memory_observation again and again while a first import fills it (11
times on the 1.5 GB corpus, 6.6 s of CPU), and these two columns were ~40% of each run
(sorting and comparing whole jsonb values). Nothing reads those statistics: every query on
them filters on a key (`payload_typed->>'counterpart'`, Django's `payload_typed__<key>`), an
expression the planner estimates from an expression index's own statistics
(memory_obs_counterpart's, still gathered) or its default selectivity, never from the
column's; no query compares whole values, tests containment (`@>`) or `IS NULL` on them.
What they lose is the measured average width, which the planner then takes as jsonb's
default."""

from django.db import migrations

COLUMNS = ("actors", "payload_typed")


def _statistics(target: int) -> str:
    return "ALTER TABLE memory_observation " + ", ".join(
        f"ALTER COLUMN {column} SET STATISTICS {target}" for column in COLUMNS)


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0031_memory_sparse_head_column'),
    ]

    operations = [
        migrations.RunSQL(_statistics(0), _statistics(-1)),
    ]
