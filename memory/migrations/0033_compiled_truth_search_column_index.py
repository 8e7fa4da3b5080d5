"""Current compiled truths are matched through a partial GIN index on their stored text
vector (`memory_compiledtruth.search`, migration 0020) instead of migration 0014's index on
the expression `cortex_tsv(markdown)`: every row written computed `cortex_tsv` (English and
French) twice, once for the stored column and once for the index (the sleep cycle's INSERT
of a first import's ~500 compiled truths, 0.7-0.8 s of statement time). The same rows are
indexed (`WHERE superseded_by_id IS NULL`).

An index on a plain column keeps no statistics of its own (ANALYZE gathers an index's only
for its expressions), so the query stems' frequencies (memory/selectors/recall_terms.py)
are read from the table column's, over every version instead of the current ones only.
"""

from django.db import migrations

EXPRESSION_INDEX = (
    "CREATE INDEX compiled_truth_search ON memory_compiledtruth "
    "USING gin (cortex_tsv(markdown)) WHERE superseded_by_id IS NULL")
COLUMN_INDEX = (
    "CREATE INDEX compiled_truth_search ON memory_compiledtruth "
    "USING gin (search) WHERE superseded_by_id IS NULL")


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0032_observation_jsonb_statistics"),
    ]

    operations = [
        migrations.RunSQL(f"DROP INDEX compiled_truth_search; {COLUMN_INDEX}",
                          f"DROP INDEX compiled_truth_search; {EXPRESSION_INDEX}"),
    ]
