"""Drop the `varchar_pattern_ops` indexes Django adds beside every indexed varchar column,
on the columns the Retain Job writes for each observation: the observation's id and dedup
key, and the `observation_id` of the rows that point at it. Nothing queries them with LIKE
(ids and keys are only compared whole; the btree index each still has serves that), and
each was one more index entry to write per row: an observation's row is written on submit
and again when retained, across every index of its table.

Django drops these indexes with `IF EXISTS` when it alters such a column, so a later
migration of one of them still applies.
"""

from django.db import migrations

LIKE_INDEXES = {
    "memory_observation_id_4fa92a02_like": ("memory_observation", "id"),
    "memory_observation_dedup_key_ea9b877b_like": ("memory_observation", "dedup_key"),
    "memory_entitymention_observation_id_a49d6ec1_like": ("memory_entitymention",
                                                          "observation_id"),
    "memory_relationevidence_observation_id_b988fca5_like": ("memory_relationevidence",
                                                             "observation_id"),
    "memory_factevidence_observation_id_084e241a_like": ("memory_factevidence",
                                                         "observation_id"),
    "memory_fact_observation_id_396952a9_like": ("memory_fact", "observation_id"),
    "memory_conflict_observation_id_5618c3ef_like": ("memory_conflict", "observation_id"),
    "memory_reviewitem_observation_id_00673444_like": ("memory_reviewitem", "observation_id"),
}

FORWARD = "".join(f"DROP INDEX IF EXISTS {name};\n" for name in LIKE_INDEXES)
BACKWARD = "".join(
    f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column} varchar_pattern_ops);\n"
    for name, (table, column) in LIKE_INDEXES.items())


class Migration(migrations.Migration):
    dependencies = [("memory", "0021_recall_alias_version")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
