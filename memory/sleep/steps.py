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
# The indexed `Entity.strength` only has to bound the strength from above (see
# memory.models.graph); rewriting it for every row every night would make each
# update non-HOT (it is indexed). It is refreshed when the evaluated value fell
# below this share of it, when it no longer bounds (a config change), or when unset.
BOUND_REFRESH_BELOW = 0.9
# The statement joins every evaluated row back to its table by id.
WORK_MEM = "256MB"

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
        cursor.execute("SELECT set_config('work_mem', %s, true)", [WORK_MEM])
        cursor.execute(sql, params)
        evaluated, written, rose, fell = cursor.fetchone()
        # Every row changed: fresh statistics keep the planner on the indexes
        # (stale ones, e.g. "strength is mostly NULL", send it to full scans).
        cursor.execute(f"ANALYZE {table}")
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
    refresh = (f"(stored.strength IS NULL OR evaluated.after > stored.strength "
               f"OR evaluated.after < stored.strength * {float(BOUND_REFRESH_BELOW)!r})")
    return _run(
        evaluate=evaluate, table=Entity._meta.db_table,
        assignments=f"strength = CASE WHEN {refresh} THEN evaluated.after ELSE stored.strength "
                    f"END, strength_evaluated_at = CASE WHEN {refresh} THEN %s "
                    "ELSE stored.strength_evaluated_at END, "
                    "strength_consolidated = evaluated.after",
        changed=f"stored.strength_consolidated IS DISTINCT FROM evaluated.after OR {refresh}",
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
