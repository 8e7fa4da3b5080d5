"""The core steps: re-evaluate every entity strength and relation weight in one
set-based statement each, store the values, and record threshold crossings
against the previous run's values."""

from __future__ import annotations

from typing import Any

from django.db import connection

from memory.decay.sql import strength_sql, weight_sql
from memory.models import Entity, EntityStatus, EntityTransition, Relation, RelationTransition
from memory.sleep.registry import StepContext, sleep_step

ENTITIES_ORDER = 10
RELATIONS_ORDER = 20

# Placeholders are positional, in order: the evaluation's, `now` in the
# assignments, the run id, then the threshold three times.
# `evaluated` holds (id, value at the last run, value now). Rows whose stored
# values already equal the new one are not written, so a second run at the same
# `now` changes nothing. A crossing needs a previous value: a first evaluation
# records none.
_TEMPLATE = """
WITH evaluated(id, before, after) AS MATERIALIZED ({evaluate}),
written AS (
    UPDATE {table} AS stored SET {assignments}
    FROM evaluated
    WHERE stored.id = evaluated.id AND ({changed})
    RETURNING evaluated.id, evaluated.before, evaluated.after
),
crossed AS (
    INSERT INTO {transitions} (run_id, {fk}, direction, before, after)
    SELECT %s, id, CASE WHEN after >= %s::float8 THEN 'rose' ELSE 'fell' END, before, after
    FROM written
    WHERE before IS NOT NULL AND (before >= %s::float8) <> (after >= %s::float8)
    RETURNING direction
)
SELECT (SELECT count(*) FROM evaluated),
       (SELECT count(*) FROM written),
       (SELECT count(*) FROM crossed WHERE direction = 'rose'),
       (SELECT count(*) FROM crossed WHERE direction = 'fell')
"""


def _run(*, evaluate: Any, table: str, assignments: str, changed: str, transitions: str,
         fk: str, ctx: StepContext, threshold: float, prefix: str) -> dict[str, int]:
    evaluate_sql, evaluate_params = evaluate.query.sql_with_params()
    sql = _TEMPLATE.format(evaluate=evaluate_sql, table=table, assignments=assignments,
                           changed=changed, transitions=transitions, fk=fk)
    params = [*evaluate_params, ctx.now, ctx.run.pk, threshold, threshold, threshold]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        evaluated, written, rose, fell = cursor.fetchone()
    return {f"{prefix}_evaluated": evaluated, f"{prefix}_written": written,
            f"{prefix}_rose": rose, f"{prefix}_fell": fell}


@sleep_step("entities", order=ENTITIES_ORDER)
def entities_evaluate(ctx: StepContext) -> dict[str, int]:
    """Strength of every entity not merged away, stored as of the run's `now`."""
    evaluate = (
        Entity.objects.exclude(status=EntityStatus.MERGED)
        .annotate(after=strength_sql(now=ctx.now, config=ctx.config))
        .values_list("id", "strength_consolidated", "after")
    )
    return _run(
        evaluate=evaluate, table=Entity._meta.db_table,
        assignments="strength = evaluated.after, strength_evaluated_at = %s, "
                    "strength_consolidated = evaluated.after",
        changed="stored.strength IS DISTINCT FROM evaluated.after "
                "OR stored.strength_consolidated IS DISTINCT FROM evaluated.after",
        transitions=EntityTransition._meta.db_table, fk="entity_id",
        ctx=ctx, threshold=ctx.config.thresholds.entity_strength,
        prefix="entities",
    )


@sleep_step("relations", order=RELATIONS_ORDER)
def relations_evaluate(ctx: StepContext) -> dict[str, int]:
    """weight_temporal of every relation, stored as of the run's `now`."""
    evaluate = Relation.objects.annotate(
        after=weight_sql(now=ctx.now, config=ctx.config)
    ).values_list("id", "weight", "after")
    return _run(
        evaluate=evaluate, table=Relation._meta.db_table,
        assignments="weight = evaluated.after, weight_evaluated_at = %s",
        changed="stored.weight IS DISTINCT FROM evaluated.after",
        transitions=RelationTransition._meta.db_table, fk="relation_id",
        ctx=ctx, threshold=ctx.config.thresholds.relation_weight,
        prefix="relations",
    )
