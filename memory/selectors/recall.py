"""Recall's strategies, each a ranked candidate list read in PostgreSQL (docs/recall.md).

Short texts (names, claims) rank by `ts_rank`, which rewards covering more of the query's
words; long ones (memories, compiled truth) by cover density normalized by length.
Every strategy returns `Candidate`s (an id, a native score, what matched) for the entities
(or memories) that pass the filters. The service fuses them; nothing here writes.

- full-text: `cortex_tsv` / `cortex_tsq` (migration 0013) over entity names and aliases,
  facts, memories and the current compiled truth, English and French, accent-insensitive;
- trigram: similarity of the query's words and word pairs to entity aliases (misspellings);
- vector: cosine similarity of the query's embedding to entity names and memories;
- graph: one or two hops from the best candidates over relations visible at `at`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

from memory.config import DecayConfig
from memory.models import Entity, Relation
from memory.recall.fusion import Candidate
from memory.retain.text import STOPWORDS, normalize
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength
from memory.selectors.recall_bm25 import bm25_sql
from memory.selectors.recall_terms import TextQuery
from memory.selectors.relations import WEIGHT_NOW, relation_with_weight
from memory.selectors.statements import statement_get

# The columns entities_at reads.
ENTITY_AT = ("id", "key", "display_name", "pinned")


@dataclass(frozen=True)
class RecallFilters:
    namespace: str = ""
    memory_type: str = ""
    referent: str = ""
    project: str = ""
    actor: str = ""


@dataclass(frozen=True)
class Scope:
    """Where candidates may come from: the filters, the time (`at`) and, for a project
    filter, the entities tied to the project (resolved once per recall)."""

    filters: RecallFilters
    at: datetime
    temporal: bool
    project_entities: tuple[int, ...] | None = None


def _like_prefix(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ":%"


def _entity_where(scope: Scope, alias: str = "e") -> tuple[str, list[Any]]:
    clauses: list[str] = [f"{alias}.status = 'active'"]
    params: list[Any] = []
    filters = scope.filters
    if filters.namespace:
        clauses.append(f"{alias}.namespace_id IN (SELECT id FROM memory_namespace "
                       "WHERE path = %s OR path LIKE %s)")
        params += [filters.namespace, _like_prefix(filters.namespace)]
    for column in ("memory_type", "referent"):
        if getattr(filters, column):
            clauses.append(f"{alias}.{column} = %s")
            params.append(getattr(filters, column))
    if scope.project_entities is not None:
        clauses.append(f"{alias}.id = ANY(%s)")
        params.append(list(scope.project_entities))
    if scope.temporal:
        clauses.append(f"{alias}.created_at <= %s")
        params.append(scope.at)
    return " AND ".join(clauses), params


def memory_where(scope: Scope, alias: str = "m") -> tuple[str, list[Any]]:
    clauses: list[str] = ["TRUE"]
    params: list[Any] = []
    if scope.filters.project:
        clauses.append(f"{alias}.project = %s")
        params.append(scope.filters.project)
    if scope.filters.actor:
        clauses.append(f"{alias}.actor = %s")
        params.append(scope.filters.actor)
    if scope.temporal:
        clauses.append(f"{alias}.occurred_at <= %s")
        params.append(scope.at)
    return " AND ".join(clauses), params


def _rows(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _candidates(rows: Iterable[tuple[Any, ...]]) -> list[Candidate]:
    return [Candidate(ref=row[0], score=float(row[1]), via=row[2] if len(row) > 2 else "")
            for row in rows]


# ---- full-text -------------------------------------------------------------------------

Statement = tuple[str, list[Any]]


def _names_sql(text: TextQuery, scope: Scope, limit: int) -> Statement:
    where, params = _entity_where(scope)
    return (
        f"""SELECT e.id, ts_rank(coalesce(
                       (SELECT s.search FROM memory_entitysearch s WHERE s.entity_id = e.id),
                       cortex_tsv(cortex_names(e.display_name, e.aliases))), %s::tsquery)
            FROM memory_entity e
            WHERE cortex_tsv(cortex_names(e.display_name, e.aliases)) @@ %s::tsquery
              AND {where}
            ORDER BY 2 DESC, e.id LIMIT %s""",
        [text.rank, text.matching("names"), *params, limit])


def fulltext_names(*, text: TextQuery, scope: Scope, limit: int) -> list[Candidate]:
    return _candidates(_rows(*_names_sql(text, scope, limit)))


def facts_ranked_sql(text: TextQuery, scope: Scope, key: str) -> tuple[str, list[Any]]:
    """The facts that match, each ranked once: (`key`, claim, rank)."""
    where, params = _entity_where(scope)
    since = "AND f.first_seen_at <= %s" if scope.temporal else ""
    return (f"""SELECT f.{key} AS key, f.claim,
                       ts_rank(f.search, %s::tsquery) AS rank
                FROM memory_fact f JOIN memory_entity e ON e.id = f.entity_id
                WHERE cortex_tsv(f.claim) @@ %s::tsquery AND f.status <> 'rejected' {since}
                  AND {where}""",
            [text.rank, text.matching("facts"), *([scope.at] if scope.temporal else []),
             *params])


def _facts_sql(text: TextQuery, scope: Scope, limit: int) -> Statement:
    ranked, params = facts_ranked_sql(text, scope, "entity_id")
    return (
        f"""SELECT key, max(rank), 'fact: ' || (array_agg(claim ORDER BY rank DESC))[1]
            FROM ({ranked}) AS ranked GROUP BY key ORDER BY 2 DESC, 1 LIMIT %s""",
        [*params, limit])


def fulltext_facts(*, text: TextQuery, scope: Scope, limit: int) -> list[Candidate]:
    return _candidates(_rows(*_facts_sql(text, scope, limit)))


def _memories_sql(text: TextQuery, scope: Scope, limit: int) -> Statement:
    where, params = memory_where(scope)
    weights = text.weights.get("memories")
    k1, b = text.bm25
    score, score_params = (bm25_sql("m.search", weights, k1=k1, b=b) if weights is not None
                           else ("ts_rank_cd(m.search, %s::tsquery, 1)", [text.rank]))
    return (
        f"""SELECT m.id, {score} FROM memory_memory m
            WHERE m.search @@ %s::tsquery AND {where}
            ORDER BY 2 DESC, m.id LIMIT %s""",
        [*score_params, text.matching("memories"), *params, limit])


def _compiled_sql(text: TextQuery, scope: Scope, limit: int) -> Statement:
    where, params = _entity_where(scope)
    return (
        f"""SELECT c.entity_id, ts_rank_cd(c.search, %s::tsquery, 1 | 32)
            FROM memory_compiledtruth c JOIN memory_entity e ON e.id = c.entity_id
            WHERE c.superseded_by_id IS NULL AND c.search @@ %s::tsquery
              AND {where}
            ORDER BY 2 DESC, 1 LIMIT %s""",
        [text.rank, text.matching("compiled"), *params, limit])


def fulltext_compiled(*, text: TextQuery, scope: Scope, limit: int) -> list[Candidate]:
    """Entities by the text of their current compiled truth (when Layer 3 holds one)."""
    return _candidates(_rows(*_compiled_sql(text, scope, limit)))


def memory_entities(*, memory_ids: Sequence[int], scope: Scope) -> dict[int, list[int]]:
    """Memory id -> the entities it mentions (that pass the filters; a merged entity's
    mention counts for the one it was merged into)."""
    if not memory_ids:
        return {}
    sql, params = _mentions_sql("mm.memory_id = ANY(%s)", [list(memory_ids)], scope)
    mentioned: dict[int, list[int]] = {}
    for memory_id, entity_id, _order in _rows(sql, params):
        mentioned.setdefault(memory_id, []).append(entity_id)
    return mentioned


def _mentions_sql(chosen: str, chosen_params: list[Any], scope: Scope) -> Statement:
    """(memory id, entity id, mention id) of the chosen mentions, in mention order."""
    where, params = _entity_where(scope)
    return (f"""SELECT mm.memory_id, e.id, mm.id FROM memory_memorymention mm
                JOIN memory_entity e0 ON e0.id = mm.entity_id
                JOIN memory_entity e ON e.id = coalesce(e0.merged_into_id, e0.id)
                WHERE {chosen} AND {where} ORDER BY mm.id""",
            [*chosen_params, *params])


# ---- trigram ---------------------------------------------------------------------------

def query_grams(query: str, *, max_words: int = 12) -> list[str]:
    """The query's words (3 letters or more, not stopwords) and pairs of them next to each
    other once the stopwords are left out, normalized like aliases, plus the whole query when
    short: what a misspelled name is compared with. (Each gram is a scan of the alias
    trigram index: a prompt's 'with', 'the', 'please' and their pairs were a third of its
    grams and matched no name.)"""
    words = [w for w in normalize(query).split()
             if len(w) >= 3 and w not in STOPWORDS][:max_words]
    grams = words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    whole = normalize(query)
    if whole and len(whole.split()) <= 4:
        grams.append(whole)
    return sorted(set(grams))


def _trigram_sql(grams: list[str], scope: Scope, limit: int, threshold: float) -> Statement:
    where, params = _entity_where(scope)
    return (
        f"""SELECT e.id, max(near.sim),
                   'name: ' || (array_agg(a.normalized ORDER BY near.sim DESC))[1]
            FROM unnest(%s::text[]) AS g
            JOIN memory_entityalias a ON a.normalized %% g
            CROSS JOIN LATERAL (SELECT similarity(a.normalized, g) AS sim OFFSET 0) AS near
            JOIN memory_entity e0 ON e0.id = a.entity_id
            JOIN memory_entity e ON e.id = coalesce(e0.merged_into_id, e0.id)
            WHERE near.sim >= %s AND {where}
            GROUP BY e.id ORDER BY 2 DESC, 1 LIMIT %s""",
        [grams, threshold, *params, limit])


def trigram_names(*, query: str, scope: Scope, limit: int, threshold: float) -> list[Candidate]:
    """Entities whose aliases are similar to the query's grams; each alias's similarity is
    computed once (the index's recheck aside), not once per use."""
    grams = query_grams(query)
    if not grams:
        return []
    sql, params = _trigram_sql(grams, scope, limit, threshold)
    return _candidates(_rows_similar(sql, params, threshold=threshold))


# What this process last set for the session of a connection (an attribute of the driver's
# connection object, so a new connection starts with nothing held).
_HELD = "cortex_recall_settings"


def settings_hold(settings: Mapping[str, str]) -> None:
    """These settings in force for the connection's next statements, in one statement at
    most: for the whole session when no transaction is open (a web worker's persistent
    connection then sets them once), for the transaction otherwise (a rollback would undo a
    session setting made inside it, unknown to this process)."""
    connection.ensure_connection()
    raw = connection.connection
    held: dict[str, str] = getattr(raw, _HELD, None) or {}
    wanted = {name: value for name, value in settings.items() if held.get(name) != value}
    if not wanted:
        return
    local = not connection.get_autocommit()
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(["set_config(%s, %s, %s)"] * len(wanted)),
                       [part for name, value in wanted.items() for part in (name, value, local)])
    if not local:
        setattr(raw, _HELD, {**held, **wanted})


def _rows_with(settings: Mapping[str, str], sql: str,
               params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """`sql` with these settings in force (settings_hold)."""
    settings_hold(settings)
    return _rows(sql, params)


def trigram_settings(threshold: float) -> dict[str, str]:
    """pg_trgm's `%` at `threshold` (its default is 0.3): the trigram index then leaves out
    what the strategy's own threshold would drop anyway."""
    return {"pg_trgm.similarity_threshold": str(threshold)}


def _rows_similar(sql: str, params: Sequence[Any], *, threshold: float) -> list[tuple[Any, ...]]:
    return _rows_with(trigram_settings(threshold), sql, params)


# ---- the lexical strategies in one statement -------------------------------------------

@dataclass
class TextCandidates:
    """What full-text (names, facts, compiled truths, memories and the entities they
    mention) and trigram found, each list as its own function above returns it."""

    names: list[Candidate] = field(default_factory=list)
    facts: list[Candidate] = field(default_factory=list)
    compiled: list[Candidate] = field(default_factory=list)
    memories: list[Candidate] = field(default_factory=list)
    mentioned: dict[int, list[int]] = field(default_factory=dict)
    trigram: list[Candidate] = field(default_factory=list)


def _part(name: str, statement: Statement, names: str, columns: str) -> Statement:
    """A branch of text_candidates' union: (part, ref, score, via, entity, mention, gram),
    from `statement`'s columns named `names`."""
    sql, params = statement
    return f"SELECT '{name}', {columns}, NULL::text FROM ({sql}) AS x({names})", params


# ---- trigram, with the aliases each gram matched kept ------------------------------------
#
# A gram's matches (alias rows with `%`, and their similarity) depend on the aliases alone,
# and the query's words come back ("who", "retry policy", a first name): each process keeps
# them, for the alias version it read them at (migration 0021: the version changes with
# every statement that writes aliases, in its transaction). The statement passes the kept
# rows and reads the version; when it is no longer theirs, every gram is read again, in the
# same statement. What each list holds is what reading every gram would give.

# Alias rows kept per process, the least recently used gram's dropped first (a few MB).
ROWS_KEPT = 50_000
_near_lock = threading.Lock()


@dataclass(frozen=True)
class _Kept:
    """A gram's matches, and each column's elements in PostgreSQL's array text, ready."""

    rows: tuple[tuple[int, str, float], ...]
    columns: tuple[str, str, str]


_near: OrderedDict[tuple[float, str], _Kept] = OrderedDict()
_near_version = [-1]
_near_rows = [0]


def _array_items(values: Iterable[int | float | str]) -> str:
    """The elements of PostgreSQL's text form of an array of these values."""
    return ",".join('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
                    if isinstance(value, str) else repr(value) for value in values)


def _array_text(values: Iterable[int | float | str]) -> str:
    """PostgreSQL's text form of an array of these values (cast in the statement): one
    parameter for the driver to quote, not one per element (hundreds of kept rows)."""
    return "{" + _array_items(values) + "}"


def _kept(rows: tuple[tuple[int, str, float], ...]) -> _Kept:
    return _Kept(rows=rows, columns=(_array_items(r[0] for r in rows),
                                     _array_items(r[1] for r in rows),
                                     _array_items(r[2] for r in rows)))


def _columns_text(kept: Iterable[_Kept], column: int) -> str:
    return "{" + ",".join(k.columns[column] for k in kept if k.rows) + "}"


def _near_sql(grams: list[str], threshold: float
              ) -> tuple[Statement, int, list[str], list[tuple[int, str, float]]]:
    """The `near` CTE (alias entity id, normalized, similarity, the gram read now or NULL),
    the version the kept rows are for, the grams to read unless it changed, and the kept
    rows themselves."""
    with _near_lock:
        version = _near_version[0]
        kept = {g: _near[(threshold, g)] for g in grams if (threshold, g) in _near}
        for gram in kept:
            _near.move_to_end((threshold, gram))
    chosen = [kept[gram] for gram in grams if gram in kept]
    rows = [row for k in chosen for row in k.rows]
    fresh = [gram for gram in grams if gram not in kept]
    return (
        """near AS MATERIALIZED (
            SELECT c.e AS entity_id, c.n AS normalized, c.s AS sim, NULL::text AS g
            FROM unnest(%s::bigint[], %s::text[], %s::real[]) AS c(e, n, s)
            WHERE (SELECT version FROM memory_aliasversion) = %s
            UNION ALL
            SELECT a.entity_id, a.normalized, s.sim, g.g
            FROM unnest(CASE WHEN (SELECT version FROM memory_aliasversion) = %s
                             THEN %s::text[] ELSE %s::text[] END) AS g(g)
            JOIN memory_entityalias a ON a.normalized %% g.g
            CROSS JOIN LATERAL (SELECT similarity(a.normalized, g.g) AS sim OFFSET 0) AS s)""",
        [_columns_text(chosen, 0), _columns_text(chosen, 1), _columns_text(chosen, 2), version,
         version, fresh, grams]), version, fresh, rows


def _near_keep(*, threshold: float, version: int, read: list[str],
               rows: list[tuple[str, int, str, float]]) -> None:
    """Keep what the grams `read` matched (none is an answer too), for `version`."""
    matched: dict[str, list[tuple[int, str, float]]] = {gram: [] for gram in read}
    for gram, entity_id, normalized, sim in rows:
        matched.setdefault(gram, []).append((entity_id, normalized, sim))
    with _near_lock:
        if version != _near_version[0]:
            _near.clear()
            _near_version[0], _near_rows[0] = version, 0
        for gram, found in matched.items():
            if len(found) > ROWS_KEPT:
                continue
            if (threshold, gram) in _near:  # an entry counts its rows, at least one
                _near_rows[0] -= max(1, len(_near[(threshold, gram)].rows))
            _near_rows[0] += max(1, len(found))
            _near[(threshold, gram)] = _kept(tuple(found))
            _near.move_to_end((threshold, gram))
        while _near_rows[0] > ROWS_KEPT:
            _near_rows[0] -= max(1, len(_near.popitem(last=False)[1].rows))


def trigram_grams_keep(*, query: str, threshold: float) -> int:
    """Read and keep the alias matches of the query's grams this process does not keep yet
    (and then every gram, when the aliases changed since the others were kept), through the
    lexical statement's own `near` CTE, so that the recalls of the query that follow read
    none of them: a context's two recalls, within its project and beyond it, run at once and
    each read every new gram (most of a new prompt's lexical statement) otherwise. The grams
    read."""
    grams = query_grams(query)
    if not grams:
        return 0
    settings_hold(trigram_settings(threshold))
    (near, params), kept_version, fresh, _rows_kept = _near_sql(grams, threshold)
    if not fresh:
        return 0
    rows = _rows(
        f"""WITH {near}
            SELECT t.g, t.entity_id, t.normalized, t.sim FROM near t WHERE t.g IS NOT NULL
            UNION ALL SELECT NULL, (SELECT version FROM memory_aliasversion), NULL, NULL""",
        params)
    version = next(int(entity_id) for gram, entity_id, _n, _s in rows if gram is None)
    read = fresh if version == kept_version else grams
    _near_keep(threshold=threshold, version=version, read=read,
               rows=[(gram, entity_id, normalized, float(sim))
                     for gram, entity_id, normalized, sim in rows if gram is not None])
    return len(read)


def _trigram_ranked_sql(scope: Scope, limit: int, least: Statement,
                        gate: Statement = ("TRUE", [])) -> Statement:
    """trigram_names' ranking over the `near` CTE (each alias's entity, merged or not,
    resolved row by row through its primary key), of the rows whose similarity is at least
    `least` (SQL and its parameters), only when `gate` (an SQL condition) holds."""
    where, params = _entity_where(scope)
    kept, kept_params = _project_rows(scope)
    return (
        f"""SELECT r.id, max(t.sim),
                   'name: ' || (array_agg(t.normalized ORDER BY t.sim DESC))[1]
            FROM near t
            CROSS JOIN LATERAL (
                SELECT e.id FROM memory_entity e0
                JOIN memory_entity e ON e.id = coalesce(e0.merged_into_id, e0.id)
                WHERE e0.id = t.entity_id AND {where} OFFSET 0) AS r
            WHERE t.sim >= {least[0]} AND {gate[0]} AND {kept}
            GROUP BY r.id ORDER BY 2 DESC, 1 LIMIT %s""",
        [*params, *least[1], *gate[1], *kept_params, limit])


def _project_rows(scope: Scope) -> Statement:
    """Under a project, the `near` rows that can name one of its entities, before each is
    resolved: an alias's entity in the project, or merged (it may resolve into one). The
    others cannot pass the filter (an unmerged entity resolves to itself), and resolving
    them cost a recall in a project most of its time (thousands of rows, two index reads
    each)."""
    if scope.project_entities is None:
        return "TRUE", []
    return ("(t.entity_id = ANY(%s) OR t.entity_id IN ("
            "SELECT m.id FROM memory_entity m WHERE m.merged_into_id IS NOT NULL))",
            [list(scope.project_entities)])


# The kept rows a ranking first reads: those of the best entities, this many times the
# ranking's limit (some alias entities resolve to the same one or fall to the filters).
CUT_ENTITIES = 2


def _cut_rows(scope: Scope, rows: Sequence[tuple[int, str, float]]
              ) -> Sequence[tuple[int, str, float]] | None:
    """The kept rows a cut is chosen from, or None for no cut: all of them with no filter on
    the entities but their status (and time), the project's own under a project (a cut
    chosen from all would rarely keep `limit` of its entities); none under another filter,
    which Python cannot tell. Any cut gives the same list (trigram_cut), this only decides
    how often the first reading is enough."""
    filters = scope.filters
    if filters.namespace or filters.memory_type or filters.referent:
        return None
    if scope.project_entities is None:
        return rows
    project = set(scope.project_entities)
    return [row for row in rows if row[0] in project]


def trigram_cut(rows: Sequence[tuple[int, str, float]], *, limit: int,
                threshold: float) -> float:
    """The similarity at or above which the kept rows name `CUT_ENTITIES x limit` alias
    entities (`threshold` when they name fewer): the ranking over the rows at that
    similarity or more is the ranking over all when it still finds `limit` entities (an
    entity's best similarity is then its own; any other ranks below)."""
    wanted = CUT_ENTITIES * limit
    seen: set[int] = set()
    for entity_id, _normalized, sim in sorted(rows, key=lambda row: -row[2]):
        seen.add(entity_id)
        if len(seen) >= wanted:
            return max(sim, threshold)
    return threshold


def _trigram_kept_sql(scope: Scope, limit: int, threshold: float,
                      cut: float) -> tuple[list[Statement], Statement]:
    """The CTEs and the ranking over `near`: with a `cut` above the threshold, the ranking
    of the rows at `cut` or more, and the ranking of them all only when that one found fewer
    than `limit` entities (the condition is evaluated once: the other branch is not run)."""
    if cut <= threshold:
        return [], _trigram_ranked_sql(scope, limit, ("%s", [threshold]))
    first = _trigram_ranked_sql(scope, limit, ("%s", [cut]))
    every_sql, every_params = _trigram_ranked_sql(
        scope, limit, ("%s", [threshold]), gate=("(SELECT count(*) FROM cut) < %s", [limit]))
    return ([(f"cut AS MATERIALIZED ({first[0]})", first[1])],
            (f"""(SELECT * FROM cut WHERE (SELECT count(*) FROM cut) >= %s)
                 UNION ALL ({every_sql})""", [limit, *every_params]))


def text_candidates(*, text: TextQuery | None, query: str, scope: Scope, limit: int,
                    trigram_threshold: float | None) -> TextCandidates:
    """Full-text's lists when `text` is given, trigram's when `trigram_threshold` is: one
    statement (a branch each, the same SQL as each function alone), not one per list."""
    grams = query_grams(query) if trigram_threshold is not None else []
    parts: list[Statement] = []
    ctes: list[Statement] = []
    if text is not None:
        score = "x.s::real"
        parts += [
            _part("names", _names_sql(text, scope, limit), "r, s",
                  f"x.r, {score}, NULL::text, NULL::bigint, NULL::bigint"),
            _part("facts", _facts_sql(text, scope, limit), "r, s, v",
                  f"x.r, {score}, x.v, NULL::bigint, NULL::bigint"),
            _part("compiled", _compiled_sql(text, scope, limit), "r, s",
                  f"x.r, {score}, NULL::text, NULL::bigint, NULL::bigint"),
        ]
        memories_sql, memories_params = _memories_sql(text, scope, limit)
        ctes.append((f"found(id, s) AS MATERIALIZED ({memories_sql})", memories_params))
        parts += [
            ("SELECT 'memories', found.id, found.s::real, NULL::text, NULL::bigint, "
             "NULL::bigint, NULL::text FROM found", []),
            _part("mentions", _mentions_sql("mm.memory_id IN (SELECT id FROM found)", [], scope),
                  "r, s, v", "x.r, NULL::real, NULL::text, x.s, x.v"),
        ]
    kept_version, fresh = -1, list[str]()
    if grams and trigram_threshold is not None:
        settings_hold(trigram_settings(trigram_threshold))
        near, kept_version, fresh, kept = _near_sql(grams, trigram_threshold)
        cut_rows = _cut_rows(scope, kept)
        cut = (trigram_cut(cut_rows, limit=limit, threshold=trigram_threshold)
               if cut_rows is not None else trigram_threshold)
        cut_ctes, ranked = _trigram_kept_sql(scope, limit, trigram_threshold, cut)
        ctes += [near, *cut_ctes]
        parts += [
            _part("trigram", ranked, "r, s, v",
                  "x.r, x.s::real, x.v, NULL::bigint, NULL::bigint"),
            ("SELECT 'near', t.entity_id, t.sim, t.normalized, NULL::bigint, NULL::bigint, t.g "
             "FROM near t WHERE t.g IS NOT NULL", []),
            ("SELECT 'version', (SELECT version FROM memory_aliasversion), NULL::real, "
             "NULL::text, NULL::bigint, NULL::bigint, NULL::text", []),
        ]
    found = TextCandidates()
    if not parts:
        return found
    sql = (f"WITH {', '.join(cte for cte, _ in ctes)} " if ctes else "") + " UNION ALL ".join(
        f"({part})" for part, _ in parts)
    params = [*(p for _, cte_params in ctes for p in cte_params),
              *(p for _, part_params in parts for p in part_params)]
    mentions: list[tuple[int, int, int]] = []
    near_rows: list[tuple[str, int, str, float]] = []
    version = kept_version
    for part, ref, score, via, entity, mention, gram in _rows(sql, params):
        if part == "mentions":
            mentions.append((mention, ref, entity))
        elif part == "near":
            near_rows.append((gram, ref, via, float(score)))
        elif part == "version":
            version = int(ref)
        else:
            getattr(found, part).append(Candidate(ref=ref, score=float(score), via=via or ""))
    if trigram_threshold is not None and grams:
        _near_keep(threshold=trigram_threshold, version=version, rows=near_rows,
                   read=fresh if version == kept_version else grams)
    for name in ("names", "facts", "compiled", "memories", "trigram"):
        # each branch's own order (score, then id: unique in every branch)
        getattr(found, name).sort(key=lambda c: (-c.score, c.ref))
    for _mention, memory_id, entity_id in sorted(mentions):
        found.mentioned.setdefault(memory_id, []).append(entity_id)
    return found


# ---- vector ----------------------------------------------------------------------------

def vector_literal(vector: Sequence[float]) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


def hnsw_settings(ef_search: int) -> dict[str, str]:
    """The HNSW scan's breadth, and an iterative scan so that filters (a project, `as_of`)
    do not starve the LIMIT. In relaxed order: every candidate is scored exactly afterwards,
    so the scan need not sort what it returns, and with a filter passing half the memories it
    costs half the CPU of the strict order."""
    return {"hnsw.ef_search": str(ef_search), "hnsw.iterative_scan": "relaxed_order"}


def _vector_names_sql(literal: str, scope: Scope, limit: int) -> Statement:
    where, params = _entity_where(scope)
    return (
        f"""SELECT e.id, 1 - (v.vector <=> %s::vector) FROM memory_entityembedding v
            JOIN memory_entity e ON e.id = v.entity_id
            WHERE v.vector IS NOT NULL AND {where}
            ORDER BY v.vector <=> %s::vector LIMIT %s""",
        [literal, *params, literal, limit])


def vector_names(*, vector: Sequence[float], scope: Scope, limit: int,
                 ef_search: int) -> list[Candidate]:
    return _candidates(_rows_with(hnsw_settings(ef_search),
                                  *_vector_names_sql(vector_literal(vector), scope, limit)))


def _vector_memories_sql(literal: str, scope: Scope, limit: int) -> Statement:
    where, params = memory_where(scope)
    return (
        f"""SELECT m.id, 1 - (v.vector <=> %s::vector) FROM memory_memoryembedding v
            JOIN memory_memory m ON m.id = v.memory_id
            WHERE {where}
            ORDER BY v.vector <=> %s::vector LIMIT %s""",
        [literal, *params, literal, limit])


def vector_memories(*, vector: Sequence[float], scope: Scope, limit: int,
                    ef_search: int) -> list[Candidate]:
    return _candidates(_rows_with(hnsw_settings(ef_search),
                                  *_vector_memories_sql(vector_literal(vector), scope, limit)))


@dataclass
class VectorCandidates:
    """What vector_nearest read (the nearest names and memories, the entities the nearest
    memories mention) or vector_exact (the exact similarity of the candidates asked for, and
    which of those entities have no name vector)."""

    names: list[Candidate] = field(default_factory=list)
    memories: list[Candidate] = field(default_factory=list)
    mentioned: dict[int, list[int]] = field(default_factory=dict)
    entity_similarity: dict[int, float] = field(default_factory=dict)
    memory_similarity: dict[int, float] = field(default_factory=dict)
    # Those of the candidates asked for whose name has no vector (a file path: full-text
    # finds it by its path's words)
    unembedded: set[int] = field(default_factory=set)


def vector_nearest(*, literal: str, scope: Scope, limit: int, ef_search: int
                   ) -> VectorCandidates:
    """vector_names and vector_memories of the query's vector (`literal`), and the entities
    the nearest memories mention: one statement."""
    names_sql, names_params = _vector_names_sql(literal, scope, limit)
    memories_sql, memories_params = _vector_memories_sql(literal, scope, limit)
    mentions_sql, mentions_params = _mentions_sql(
        "mm.memory_id IN (SELECT id FROM nearest)", [], scope)
    settings_hold(hnsw_settings(ef_search))
    rows = _rows(
        f"""WITH nearest(id, s) AS MATERIALIZED ({memories_sql})
            (SELECT 'names', x.r, x.s, NULL::bigint FROM ({names_sql}) AS x(r, s))
            UNION ALL (SELECT 'memories', nearest.id, nearest.s, NULL::bigint FROM nearest)
            UNION ALL (SELECT 'mentions', x.r, x.v::float8, x.s
                       FROM ({mentions_sql}) AS x(r, s, v))""",
        [*memories_params, *names_params, *mentions_params])
    found = VectorCandidates()
    mentions: list[tuple[float, int, int]] = []
    for part, ref, score, entity in rows:
        if part == "mentions":
            mentions.append((score, ref, entity))
        else:
            getattr(found, part).append(Candidate(ref=ref, score=float(score)))
    for _mention, memory_id, entity_id in sorted(mentions):
        found.mentioned.setdefault(memory_id, []).append(entity_id)
    return found


def vector_exact(*, literal: str, entity_ids: Collection[int], memory_ids: Collection[int]
                 ) -> VectorCandidates:
    """The query's cosine similarity to `entity_ids`' names and to `memory_ids` (as
    memory/selectors/recall_memories.py does for memories), and which of `entity_ids` have
    no name vector: one statement."""
    rows = _rows(
        """(SELECT 'entity', entity_id, 1 - (vector <=> %s::vector)
            FROM memory_entityembedding WHERE entity_id = ANY(%s))
           UNION ALL (SELECT 'memory', memory_id, 1 - (vector <=> %s::vector)
            FROM memory_memoryembedding WHERE memory_id = ANY(%s))""",
        [literal, list(entity_ids), literal, list(memory_ids)])
    found = VectorCandidates()
    for part, ref, score in rows:
        if part == "entity" and score is None:
            found.unembedded.add(ref)
        elif part == "entity":
            found.entity_similarity[ref] = float(score)
        else:
            found.memory_similarity[ref] = float(score)
    return found


# ---- graph -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Edge:
    source: int
    target: int
    relation_type: str
    weight: float


def _touching(ids: list[int]) -> RawSQL:
    """Relations from or to one of `ids` (one array parameter, whatever their number)."""
    return RawSQL("(source_id = ANY(%s) OR target_id = ANY(%s))", (ids, ids),
                  output_field=BooleanField())


def _edges_sql(*, ids: list[int], at: datetime, include_faded: bool, temporal: bool,
               config: DecayConfig, limit: int) -> Statement:
    """edges_of's statement: (source, target, type, weight, relation id), heaviest first;
    each row's weight computed once (behind OFFSET 0), not in the filter and the order
    again: a hub's second hop reads thousands of relations."""

    def build(at: datetime, ids: list[int]) -> Statement:
        queryset = Relation.objects.filter(_touching(ids))
        if temporal:
            queryset = queryset.filter(created_at__lte=at)
        rows = relation_with_weight(now=at, queryset=queryset, config=config).order_by()
        inner, params = rows.values_list(
            "source_id", "target_id", "relation_type", WEIGHT_NOW, "id").query.sql_with_params()
        visible = "" if include_faded else "WHERE r.weight_now >= %s"
        return (f"""SELECT r.* FROM ({inner} OFFSET 0)
                        AS r(source_id, target_id, relation_type, weight_now, id)
                    {visible} ORDER BY r.weight_now DESC, r.id LIMIT %s""",
                [*params, *([] if include_faded else [config.thresholds.relation_weight]),
                 limit])

    return statement_get(key=("edges", include_faded, temporal, limit), owner=config,
                         build=build, at=at, ids=ids)


def edges_of(*, entity_ids: Iterable[int], at: datetime, include_faded: bool, temporal: bool,
             config: DecayConfig, limit: int) -> list[Edge]:
    """The relations touching these entities, heaviest first, as weighed at `at`; only the
    visible ones (weight >= the threshold) unless `include_faded`."""
    ids = list(set(entity_ids))
    if not ids:
        return []
    sql, params = _edges_sql(ids=ids, at=at, include_faded=include_faded, temporal=temporal,
                             config=config, limit=limit)
    return [Edge(s, t, rtype, float(w)) for s, t, rtype, w, _id in _rows(sql, params)]


def edges_two_hops(*, seeds: Iterable[int], at: datetime, include_faded: bool,
                   temporal: bool, config: DecayConfig, limit: int
                   ) -> tuple[list[Edge], list[Edge]]:
    """edges_of(seeds), then edges_of of the entities those edges reach beyond the seeds, in
    one statement (the second hop's ids read from the first's rows in PostgreSQL)."""
    ids = list(set(seeds))
    if not ids:
        return [], []
    first_sql, first_params = _edges_sql(ids=ids, at=at, include_faded=include_faded,
                                         temporal=temporal, config=config, limit=limit)
    # The same statement with the reached ids in place of the seeds' parameter.
    pieces = first_sql.split("%s")
    second_sql = pieces[0] + "".join(
        ("(SELECT reached.ids FROM reached)::bigint[]" if value is ids else "%s") + piece
        for value, piece in zip(first_params, pieces[1:], strict=True))
    second_params = [value for value in first_params if value is not ids]
    rows = _rows(
        f"""WITH hop AS MATERIALIZED ({first_sql}),
                 reached AS (
                     SELECT coalesce(array_agg(DISTINCT far), '{{}}')::bigint[] AS ids
                     FROM (SELECT CASE WHEN hop.source_id = ANY(%s) THEN hop.target_id
                                       ELSE hop.source_id END AS far FROM hop) AS ends
                     WHERE NOT far = ANY(%s))
            SELECT 1, hop.* FROM hop
            UNION ALL SELECT 2, second.* FROM ({second_sql}) AS second""",
        [*first_params, ids, ids, *second_params])
    hops: tuple[list[Edge], list[Edge]] = ([], [])
    for hop, s, t, rtype, w, _rid in sorted(rows, key=lambda r: (r[0], -float(r[4]), r[5])):
        hops[hop - 1].append(Edge(s, t, rtype, float(w)))
    return hops


@dataclass(frozen=True)
class EntityAt:
    """An entity as recall and context read it: its strength at the evaluation time
    (`strength_now`, None when it has no decay state)."""

    pk: int
    key: str
    display_name: str
    pinned: bool
    strength_now: float | None


def entities_at(*, ids: Collection[int], at: datetime, config: DecayConfig) -> list[EntityAt]:
    """These entities, each with its strength at `at`: plain rows, not model instances (a
    recall reads hundreds)."""
    if not ids:
        return []

    def build(at: datetime, ids: list[int]) -> QuerySet[Any]:
        chosen = RawSQL("id = ANY(%s)", (ids,), output_field=BooleanField())
        return entity_with_strength(now=at, config=config,
                                    queryset=Entity.objects.filter(chosen).only(*ENTITY_AT))

    sql, params = statement_get(key=("entities", ENTITY_AT), owner=config, build=build, at=at,
                                ids=list(ids))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        index = {column.name: i for i, column in enumerate(cursor.description)}
        return [EntityAt(pk=row[index["id"]], key=row[index["key"]],
                         display_name=row[index["display_name"]], pinned=row[index["pinned"]],
                         strength_now=row[index[STRENGTH_NOW]]) for row in cursor.fetchall()]


def project_entity_ids(*, project: str, limit: int = 5000) -> tuple[int, ...]:
    """The entities tied to a project: the project itself (by name, in world:project) and its
    direct neighbours, whatever their weight (a filter, not a ranking)."""
    rows = _rows(
        """WITH p AS (SELECT coalesce(e.merged_into_id, e.id) AS id FROM memory_entityalias a
                      JOIN memory_namespace n ON n.id = a.namespace_id
                      JOIN memory_entity e ON e.id = a.entity_id
                      WHERE a.normalized = %s AND n.path LIKE 'world:project%%')
           SELECT id FROM p
           UNION SELECT r.target_id FROM memory_relation r JOIN p ON r.source_id = p.id
           UNION SELECT r.source_id FROM memory_relation r JOIN p ON r.target_id = p.id
           LIMIT %s""",
        [normalize(project), limit])
    return tuple(row[0] for row in rows)
