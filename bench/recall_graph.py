"""A large synthetic graph for bench/recall_latency.py, written set-based (COPY and SQL).

Entities with varied display names (people from several languages, libraries and tools,
projects, organizations, places, English and French topics, standing instructions), their
alias rows, facts whose claims name other entities, relations with a few hubs, memories
(one raw event each) that mention two or three entities, a current compiled truth per
entity, and synthetic embeddings: random unit vectors (uniform on the sphere), not a
model's, for entities and memories, and for memories learned sparse vectors shaped like the
model's (bench/recall_sparse.py), every other one also in the context of a previous turn.
Names and texts are made in Python (one pass, deterministic by seed), rows go in by COPY;
relations and dense vectors are made by PostgreSQL (generate_series, random()).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

FIRST = ("Anna", "Marie", "Jean", "Pierre", "Lukas", "Zofia", "Piotr", "Maria", "Sofia", "Lucas",
         "Emma", "Noah", "Olivia", "Liam", "Chloé", "Hugo", "Léa", "Louis", "Camille", "Jules",
         "Inès", "Théo", "Manon", "Nathan", "Élodie", "Gaël", "Anaïs", "Rémi", "Agnieszka",
         "Tomasz", "Katarzyna", "Hans", "Greta", "Jürgen", "Ingrid", "Sven", "Astrid", "Mateo",
         "Lucía", "Diego", "Carmen", "Javier", "Giulia", "Marco", "Chiara", "Luca", "Francesca",
         "Hiroshi", "Yuki", "Kenji", "Aiko", "Wei", "Mei", "Priya", "Arjun", "Ananya", "Omar",
         "Fatima", "Yusuf", "Leila", "Amara", "Kwame", "Nia", "Tariq", "Olga", "Dmitri", "Ivan",
         "Natalia", "Sergei", "Eero", "Aino", "Bjorn", "Freya", "Siobhan", "Declan", "Aoife",
         "Niamh", "Rhys", "Cerys", "Dafydd", "Margaux", "Baptiste", "Clément", "Solène", "Mathilde",
         "Aurélien", "Gwenaëlle", "Yannick", "Maëlle", "Loïc")
LAST = ("Kowalski", "Nowak", "Wiśniewski", "Dubois", "Martin", "Bernard", "Lefèvre", "Moreau",
        "Laurent", "Girard", "Fournier", "Rousseau", "Schmidt", "Müller", "Schneider", "Fischer",
        "Weber", "Wagner", "Becker", "Hoffmann", "García", "Fernández", "López", "Martínez",
        "Sánchez", "Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Tanaka", "Suzuki",
        "Takahashi", "Watanabe", "Yamamoto", "Chen", "Wang", "Zhang", "Liu", "Yang", "Sharma",
        "Patel", "Gupta", "Iyer", "Haddad", "Khalil", "Nasser", "Mensah", "Okafor", "Adeyemi",
        "Ivanov", "Petrov", "Smirnov", "Sokolov", "Virtanen", "Korhonen", "Lindqvist", "Johansson",
        "Andersen", "Nielsen", "O'Brien", "Murphy", "Kelly", "Walsh", "Jones", "Evans", "Davies",
        "Thomas", "Roberts", "Smith", "Johnson", "Williams", "Brown", "Miller", "Wilson", "Taylor",
        "Anderson", "Clarke", "Lambert", "Fontaine", "Mercier", "Chevalier", "Blanchard",
        "Gauthier", "Perrin", "Morel", "Brunet", "Leclerc", "Faure", "Dupont", "Lemoine", "Renard",
        "Colin", "Vidal", "Caron", "Picard", "Roux", "Marchand", "Lindgren", "Eriksson", "Novak",
        "Horvat", "Kovač", "Popescu", "Ionescu", "Dimitrov", "Georgiou", "Papadopoulos", "Yilmaz",
        "Kaya", "Demir", "Silva", "Santos", "Oliveira", "Pereira", "Costa", "Almeida", "Ribeiro",
        "Carvalho")
SYLLABLES = ("ka", "ra", "zen", "tor", "vel", "mi", "no", "qua", "lix", "bor", "dan", "sev", "tri",
             "ny", "pho", "gra", "kel", "vin", "zo", "lu", "mar", "pex", "fin", "tal", "rho", "cor",
             "dex", "sta", "plu", "bri", "gon", "hal", "ver", "sin", "tux", "mo", "ba")
TOOL_SUFFIX = ("", "", "db", "js", "kit", "ify", "ly", "hub", "flow", "io", "-core", "-cli",
               "x", "py", "lab", "stack")
ADJECTIVES = ("billing", "payment", "shop", "search", "ingest", "mobile", "admin", "analytics",
              "reporting", "notification", "auth", "inventory", "shipping", "pricing", "onboarding",
              "support", "export", "sync", "backup", "identity", "catalog", "checkout", "fraud",
              "ledger", "invoice", "booking", "loyalty")
NOUNS = ("gateway", "backend", "service", "portal", "pipeline", "engine", "api", "dashboard",
         "worker", "scheduler", "platform", "bridge", "console", "tracker", "indexer", "monolith",
         "frontend", "app", "cluster", "proxy")
TOPICS_EN = ("retry policy", "flaky tests", "memory leak", "cold start", "schema migration",
             "rate limiting", "dependency upgrade", "circular dependencies", "code review",
             "release notes", "load test", "error budget", "feature flag", "dead letter queue",
             "connection pool", "cache invalidation", "type checking", "test coverage",
             "build cache", "log retention", "access control", "database vacuum", "query planner",
             "index bloat", "backpressure", "idempotency key", "time zones",
             "unicode normalization", "secret rotation", "disk usage")
TOPICS_FR = ("dépendances circulaires", "politique de relance", "fuite mémoire",
             "démarrage à froid", "migration de schéma", "limitation de débit",
             "mise à jour des dépendances", "revue de code", "notes de version", "test de charge",
             "budget d'erreur", "file des messages morts", "invalidation du cache",
             "vérification des types", "couverture des tests", "rotation des secrets",
             "fuseaux horaires", "contrôle d'accès", "plan d'exécution", "sauvegarde nocturne",
             "déploiement progressif", "gestion des erreurs")
PLACES = ("Paris", "Lyon", "Marseille", "Toulouse", "Nantes", "Lille", "Bordeaux", "Kraków",
          "Warszawa", "Berlin", "München", "Hamburg", "Madrid", "Sevilla", "Roma", "Milano",
          "Tokyo", "Osaka", "London", "Dublin", "Montréal", "Québec", "Bruxelles", "Genève",
          "Lausanne", "Helsinki", "Oslo", "Stockholm", "Lisboa", "Porto")
ORG_SUFFIX = ("Labs", "Systems", "& Co", "GmbH", "SA", "Consulting", "Studio", "Group",
              "Foundation", "Technologies")
VERBS_EN = ("uses", "depends on", "replaced", "deploys", "maintains", "broke", "migrated to",
            "benchmarks", "documents", "reviews")
VERBS_FR = ("utilise", "dépend de", "a remplacé", "déploie", "maintient", "a cassé",
            "a migré vers", "teste", "documente", "relit")
MEMORY_EN = ("{a} said that {b} {verb} {c} since the last release",
             "remember: {a} prefers {c} over {b} for the {topic}",
             "the {topic} in {b} was fixed by {a} after a long debugging session",
             "{a} asked us never to use {c} in {b} again because of the {topic}",
             "meeting with {a} about {b}: we agreed to drop {c} next quarter")
MEMORY_FR = ("{a} a dit que {b} {verb} {c} depuis la dernière version",
             "à retenir : {a} préfère {c} à {b} pour la {topic}",
             "la {topic} de {b} a été corrigée par {a} après une longue séance de débogage",
             "{a} nous a demandé de ne plus jamais utiliser {c} dans {b} à cause de la {topic}",
             "réunion avec {a} au sujet de {b} : on abandonne {c} au prochain trimestre")
CLAIMS_EN = ("{verb} {c}", "should not use {c}", "owns the {topic}", "works with {c} daily",
             "wrote the guide on {topic}")
CLAIMS_FR = ("{verb} {c}", "ne doit pas utiliser {c}", "s'occupe de la {topic}",
             "travaille avec {c} tous les jours", "a écrit le guide sur la {topic}")
# namespace -> share of the entities (out of 100)
KINDS = (("world:person", 36), ("world:artifact", 20), ("world:project", 10),
         ("world:topic", 14), ("world:organization", 6), ("world:place", 4),
         ("world:concept", 5), ("agent:claude-code:instruction", 5))
DIMENSION = 384


@dataclass(frozen=True)
class Sizes:
    entities: int = 100_000
    relations: int = 500_000
    memories: int = 200_000
    facts_per_entity: float = 1.5
    pinned: int = 8


@dataclass
class Names:
    """What the generator made, for the query set: display names by namespace."""

    by_kind: dict[str, list[str]]


def _tool(rng: random.Random) -> str:
    word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
    return (word + rng.choice(TOOL_SUFFIX)).capitalize()


def _name(kind: str, rng: random.Random, i: int) -> str:
    if kind == "world:person":
        return f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    if kind == "world:artifact":
        return _tool(rng)
    if kind == "world:project":
        return f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {i % 97}"
    if kind == "world:organization":
        return f"{rng.choice(LAST) if i % 2 else _tool(rng)} {rng.choice(ORG_SUFFIX)}"
    if kind == "world:place":
        return f"{rng.choice(PLACES)} {rng.choice(('office', 'datacenter', 'bureau', 'site'))}"
    if kind == "world:topic":
        return rng.choice(TOPICS_FR if i % 3 == 0 else TOPICS_EN) + f" {i % 503}"
    if kind == "world:concept":
        return f"{rng.choice(TOPICS_EN)} principle {i % 211}"
    return f"never use {_tool(rng)} in {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"


def _kinds(n: int) -> list[str]:
    pattern = [kind for kind, share in KINDS for _ in range(share)]
    return [pattern[(i * 37) % len(pattern)] for i in range(n)]


def _copy(cursor: Any, statement: str, rows: Iterator[Sequence[Any]]) -> None:
    with cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


def _entity_rows(names: Sequence[str], kinds: Sequence[str],
                 namespaces: dict[str, tuple[Any, ...]], *, now: datetime, pinned: int,
                 rng: random.Random) -> Iterator[tuple[Any, ...]]:
    for i, (name, kind) in enumerate(zip(names, kinds, strict=True), start=1):
        ns_id, memory_type, referent, half_life = namespaces[kind]
        age = timedelta(days=rng.random() ** 2 * 120)
        aliases = f'{{"{name.split()[-1]}"}}' if kind == "world:person" else "{}"
        base = round(0.3 + 0.7 * rng.random(), 3)
        yield (i, ns_id, f"e{i}", f"{kind}:e{i}", name, aliases, memory_type, referent, base,
               half_life, "neutral", rng.randint(0, 3), 0, rng.randint(0, 12), now - age,
               i <= pinned, "normal", "active", now - age - timedelta(days=30), now)


def _alias_rows(names: Sequence[str], kinds: Sequence[str],
                namespaces: dict[str, tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    from memory.retain.text import normalize

    seen: set[tuple[int, str]] = set()
    for i, (name, kind) in enumerate(zip(names, kinds, strict=True), start=1):
        ns_id = namespaces[kind][0]
        forms = [name] + ([name.split()[-1]] if kind == "world:person" else [])
        for form in forms:
            key = (ns_id, normalize(form))
            if key[1] and key not in seen:
                seen.add(key)
                yield ns_id, key[1], i


def _texts(templates: Sequence[str], verbs: Sequence[str], names: Sequence[str],
           rng: random.Random, topics: Sequence[str]) -> tuple[str, list[int]]:
    ids = [rng.randrange(len(names)) for _ in range(3)]
    text = rng.choice(templates).format(a=names[ids[0]], b=names[ids[1]], c=names[ids[2]],
                                        verb=rng.choice(verbs), topic=rng.choice(topics))
    return text, [i + 1 for i in ids]


def _fact_rows(names: Sequence[str], count: int, *, now: datetime,
               rng: random.Random) -> Iterator[tuple[Any, ...]]:
    for g in range(1, count + 1):
        french = g % 3 == 0
        claim, _ = _texts(CLAIMS_FR if french else CLAIMS_EN, VERBS_FR if french else VERBS_EN,
                          names, rng, TOPICS_FR if french else TOPICS_EN)
        entity = 1 + (g * 7919) % len(names)
        yield (entity, claim, f"k{g}", "{}", 1, "", "fr" if french else "en",
               "contested" if g % 40 == 0 else "active", 1 + g % 4, now, now, "{}", now)


def _memory_rows(names: Sequence[str], count: int, *, now: datetime, memory_ns: int,
                 rng: random.Random, mentions: list[tuple[int, int]]
                 ) -> Iterator[tuple[Any, ...]]:
    for g in range(1, count + 1):
        french = g % 3 == 0
        text, ids = _texts(MEMORY_FR if french else MEMORY_EN, VERBS_FR if french else VERBS_EN,
                           names, rng, TOPICS_FR if french else TOPICS_EN)
        mentions.extend((g, e) for e in dict.fromkeys(ids))
        at = now - timedelta(minutes=g * 3)
        yield (g, f"{g:026x}", "api:bench", f"bench-{g}", text, "", f"project-{g % 40}", at,
               "{}", "fr" if french else "en", memory_ns, "episodic", "abstract", 0.6, 30,
               "neutral", False, 0, at, True, at)


_EVENTS = """
INSERT INTO memory_memoryevent (id, source, source_id, occurred_at, recorded_at, type, subtype,
  actor, project, correlation_session, correlation_thread, correlation_parent, payload,
  redaction_count)
SELECT lpad(to_hex(g), 26, '0'), 'api:bench', 'bench-' || g,
  %(now)s - g * interval '3 minutes', %(now)s, 'memory', 'remember', '', '', '', '', '',
  '\\x007b7d', 0
FROM generate_series(1, %(memories)s) g"""

_RELATIONS = """
INSERT INTO memory_relation (source_id, target_id, relation_type, relation_class,
  last_reinforced_at, evidence_count, created_at)
SELECT 1 + i %% %(n)s,
  CASE WHEN i %% 5 = 4 THEN 1 + floor(%(n)s * random() ^ 3)::int
       ELSE 1 + (i %% %(n)s + 1 + (i / %(n)s) * 7919) %% %(n)s END,
  (%(types)s::text[])[1 + i %% %(ntypes)s], 'normal',
  %(now)s - random() ^ 2 * interval '120 days', 1 + floor(random() * 5)::int,
  %(now)s - interval '150 days'
FROM generate_series(0, %(relations)s - 1) i
ON CONFLICT DO NOTHING"""

_COMPILED = """
INSERT INTO memory_compiledtruth (entity_id, version, markdown, as_of, strength, pinned,
  facts_count, facts_digest, relations_count, relations_digest, memories_count,
  memories_digest, reasons, trigger, created_at)
SELECT e.id, 1, '# ' || e.display_name || E'\n\n## Summary\n\n' || e.display_name || ': '
    || coalesce((SELECT string_agg(f.claim, '; ') FROM memory_fact f WHERE f.entity_id = e.id),
                'nothing known yet') || E'.\n\n## Facts\n\n' || coalesce((SELECT string_agg(
    '- ' || f.claim, E'\n') FROM memory_fact f WHERE f.entity_id = e.id), ''),
  %(now)s, 0.5, e.pinned, 0, '', 0, '', 0, '', '{first}', 'sleep_cycle', %(now)s
FROM memory_entity e"""

_VECTOR = """(SELECT l2_normalize(array_agg(
    sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))::vector)
  FROM generate_series(1, %(dimension)s + 0 * {id}))"""


def _sql(statement: str, params: Any = None) -> Any:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall() if cursor.description else None


def _namespaces(kinds: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    from memory.models import Namespace

    rows = Namespace.objects.filter(path__in=set(kinds) | {"self:memory"}).values_list(
        "path", "id", "memory_type", "referent", "half_life_days")
    return {path: (ns_id, memory_type, referent, half_life)
            for path, ns_id, memory_type, referent, half_life in rows}


def _reset() -> None:
    import pgtrigger

    with pgtrigger.ignore("memory.MemoryEvent:no_truncate"):
        _sql("TRUNCATE memory_contextinjection, memory_memoryembedding, memory_memorymention, "
             "memory_memory, memory_entityembedding, memory_entityalias, memory_fact, "
             "memory_relation, memory_entity, memory_memoryevent RESTART IDENTITY CASCADE")


_MEMORY_INDEXES = (
    "CREATE INDEX memory_embedding_hnsw ON memory_memoryembedding USING hnsw "
    "(vector vector_cosine_ops) WITH (m = 16, ef_construction = 64)",
    "CREATE INDEX memory_embedding_head_hnsw ON memory_memoryembedding USING hnsw "
    "(sparse_head sparsevec_ip_ops) WITH (m = 16, ef_construction = 64)",
)


def _vectors(*, sparse: bool) -> None:
    """Random unit vectors (Gaussian components, normalized): uniform on the sphere; the
    memories' learned sparse vectors shaped like the model's (bench/recall_sparse.py); their
    index only with `sparse`."""
    params = {"dimension": DIMENSION}
    _sql("DROP INDEX IF EXISTS entity_embedding_hnsw")
    _memory_indexes_drop()
    _sql(f"""INSERT INTO memory_entityembedding (entity_id, namespace_id, vector, model,
               dimension, text, dedup, embedded_at)
             SELECT e.id, e.namespace_id, {_VECTOR.format(id="e.id")}, 'synthetic',
               %(dimension)s, e.display_name, 'done', now() FROM memory_entity e""", params)
    _sparse_stage()
    _sql(f"""INSERT INTO memory_memoryembedding (memory_id, vector, sparse, context_vector,
               context_sparse, model, dimension, embedded_at)
             SELECT m.id, {_VECTOR.format(id="m.id")}, s.sparse,
               CASE WHEN m.id %% 2 = 0 THEN {_VECTOR.format(id="m.id")} END, s.context_sparse,
               'synthetic', %(dimension)s, now()
             FROM memory_memory m LEFT JOIN bench_sparse s ON s.memory_id = m.id""", params)
    _sql("SET maintenance_work_mem = '1GB'")
    _sql("CREATE INDEX entity_embedding_hnsw ON memory_entityembedding USING hnsw "
         "(vector vector_cosine_ops) WITH (m = 16, ef_construction = 64)")
    _memory_indexes_create(sparse=sparse)


def _memory_indexes_drop() -> None:
    _sql("DROP INDEX IF EXISTS memory_embedding_hnsw")
    _sql("DROP INDEX IF EXISTS memory_embedding_head_hnsw")


def _memory_indexes_create(*, sparse: bool = True) -> None:
    _sql("SET maintenance_work_mem = '1GB'")
    for statement in _MEMORY_INDEXES[:None if sparse else 1]:
        _sql(statement)


def _sparse_stage() -> None:
    """bench_sparse (a temporary table of this connection): every memory's sparse vectors,
    drawn from the sparse head's output on a sample of the memories' own texts."""
    from django.db import connection

    from bench.recall_sparse import SAMPLE_TEXTS, sparse_profile, sparse_staged

    ids = [row[0] for row in _sql("SELECT id FROM memory_memory ORDER BY id")]
    step = max(1, len(ids) // SAMPLE_TEXTS)
    texts = [row[0] for row in _sql("SELECT text FROM memory_memory WHERE id %% %s = 0 "
                                    "ORDER BY id LIMIT %s", [step, SAMPLE_TEXTS])]
    profile = sparse_profile(texts)
    print(f"  {profile.describe()}", flush=True)
    with connection.cursor() as cursor:
        sparse_staged(cursor.cursor, ids, profile)


def indexes_ensure(*, sparse: bool = True, progress: Any = print) -> None:
    """The vectors' HNSW indexes a generation interrupted while building them left out
    (the sparse one only with `sparse`: it costs several times the dense one to build)."""
    have = {row[0] for row in _sql("SELECT indexname FROM pg_indexes WHERE indexname IN "
                                   "('entity_embedding_hnsw', 'memory_embedding_hnsw', "
                                   "'memory_embedding_head_hnsw')")}
    wanted = {"entity_embedding_hnsw": "CREATE INDEX entity_embedding_hnsw ON "
              "memory_entityembedding USING hnsw (vector vector_cosine_ops) "
              "WITH (m = 16, ef_construction = 64)",
              "memory_embedding_hnsw": _MEMORY_INDEXES[0]}
    if sparse:
        wanted["memory_embedding_head_hnsw"] = _MEMORY_INDEXES[1]
    for name, statement in wanted.items():
        if name not in have:
            progress(f"  building {name}, missing", flush=True)
            _sql("SET maintenance_work_mem = '1GB'")
            _sql(statement)


def sparse_fill(*, progress: Any = print) -> bool:
    """A graph generated before memories had sparse vectors gets them (and the context
    vectors), and the memories are marked embedded again (migrations 0028 and 0029 marked
    them not); the memories' HNSW indexes are rebuilt. False when nothing was missing."""
    missing = _sql("SELECT count(*) FROM memory_memoryembedding WHERE sparse IS NULL")[0][0]
    if not missing:
        return False
    progress(f"  {missing:,} memories without a sparse vector: drawing them, then the "
             "memories' HNSW indexes again")
    _memory_indexes_drop()
    _sparse_stage()
    _sql(f"""UPDATE memory_memoryembedding v SET sparse = s.sparse,
               context_sparse = s.context_sparse,
               context_vector = CASE WHEN v.memory_id %% 2 = 0
                 THEN {_VECTOR.format(id="v.memory_id")} END
             FROM bench_sparse s WHERE s.memory_id = v.memory_id""", {"dimension": DIMENSION})
    _sql("UPDATE memory_memory SET embedded = true WHERE NOT embedded")
    _sql("VACUUM ANALYZE memory_memoryembedding")
    _sql("VACUUM ANALYZE memory_memory")
    _memory_indexes_create()
    return True


def graph_generate(*, sizes: Sizes, now: datetime, seed: int = 7, sparse: bool = True,
                   progress: Any = print) -> Names:
    """Replace the graph of the current database with a generated one of `sizes` (without
    the sparse vectors' index unless `sparse`)."""
    from django.db import connection

    from memory.config import config_get
    from memory.services.taxonomy import taxonomy_sync

    taxonomy_sync()
    rng = random.Random(seed)
    kinds = _kinds(sizes.entities)
    names = [_name(kind, rng, i) for i, kind in enumerate(kinds)]
    namespaces = _namespaces(kinds)
    _reset()
    mentions: list[tuple[int, int]] = []
    with connection.cursor() as cursor:
        raw = cursor.cursor
        _copy(raw, "COPY memory_entity (id, namespace_id, slug, key, display_name, aliases, "
              "memory_type, referent, base, half_life_days, valence, pos, neg, retrieval_count,"
              " last_reinforced_at, pinned, route, status, created_at, updated_at) FROM STDIN",
              _entity_rows(names, kinds, namespaces, now=now, pinned=sizes.pinned, rng=rng))
        _copy(raw, "COPY memory_entityalias (namespace_id, normalized, entity_id) FROM STDIN",
              _alias_rows(names, kinds, namespaces))
        _copy(raw, "COPY memory_fact (entity_id, claim, lemma_key, lemmas, polarity, scope, "
              "language, status, evidence_count, first_seen_at, last_seen_at, event_ids, "
              "created_at) FROM STDIN",
              _fact_rows(names, int(sizes.entities * sizes.facts_per_entity), now=now, rng=rng))
        progress("  entities, aliases, facts written")
        cursor.execute(_EVENTS, {"now": now, "memories": sizes.memories})
        _copy(raw, "COPY memory_memory (id, event_id, source, source_id, text, actor, project, "
              "occurred_at, metadata, language, namespace_id, memory_type, referent, base, "
              "half_life_days, valence, pinned, retrieval_count, last_reinforced_at, embedded, "
              "created_at) FROM STDIN",
              _memory_rows(names, sizes.memories, now=now, rng=rng, mentions=mentions,
                           memory_ns=namespaces["self:memory"][0]))
        _copy(raw, "COPY memory_memorymention (memory_id, entity_id, role, surface, value) "
              "FROM STDIN", ((m, e, "mention", "", "") for m, e in mentions))
    progress("  memories and mentions written")
    types = list(config_get().graph.relation_types)
    _sql("SELECT setseed(0.42)")
    _sql(_RELATIONS, {"n": sizes.entities, "relations": sizes.relations, "now": now,
                      "types": types, "ntypes": len(types)})
    for table in ("entity", "memory"):
        _sql(f"SELECT setval(pg_get_serial_sequence('memory_{table}', 'id'), "
             f"(SELECT max(id) FROM memory_{table}))")
    compiled_generate(now=now)
    progress("  relations and compiled truths written; vectors and their HNSW indexes next")
    _vectors(sparse=sparse)
    for table in ("entity", "entityalias", "fact", "relation", "memory", "memorymention",
                  "memoryevent", "entityembedding", "memoryembedding"):
        _sql(f"VACUUM ANALYZE memory_{table}")
    by_kind: dict[str, list[str]] = {}
    for name, kind in zip(names, kinds, strict=True):
        by_kind.setdefault(kind, []).append(name)
    return Names(by_kind=by_kind)


def compiled_generate(*, now: datetime) -> None:
    """A current compiled truth per entity (a Summary and the facts), as sleep cycles leave."""
    _sql("TRUNCATE memory_compiledtruth RESTART IDENTITY CASCADE")
    _sql(_COMPILED, {"now": now})
    _sql("VACUUM ANALYZE memory_compiledtruth")


def graph_names() -> Names:
    """The display names of an already generated graph, by namespace."""
    by_kind: dict[str, list[str]] = {}
    for path, name in _sql("SELECT n.path, e.display_name FROM memory_entity e "
                           "JOIN memory_namespace n ON n.id = e.namespace_id ORDER BY e.id"):
        by_kind.setdefault(path, []).append(name)
    return Names(by_kind=by_kind)
