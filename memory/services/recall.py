"""Recall (docs/recall.md): the union of every strategy's candidates, fused by relevance,
weighed by strength as a bounded boost, each returned hit reinforced once in one statement.

`unit="entity"` ranks entities (with the facts and memories that matched them);
`unit="memory"` ranks the memories and facts themselves, with their provenance.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeVar, cast, get_args

from django.db import DatabaseError, close_old_connections, connection, transaction

from memory import clock
from memory.config import DecayConfig, RecallSection, config_get
from memory.decay.formulas import EntityState, entity_strength
from memory.errors import Invalid
from memory.recall.fusion import (
    Candidate,
    Fused,
    Ref,
    adjacent_lifted,
    fuse,
    language_centred,
    rank,
    unscored_filled,
)
from memory.recall.when import Window, query_window
from memory.retain.embedders import Embedder, embedder_get, sparse_encoder_get
from memory.selectors import recall as strategies
from memory.selectors import recall_memories as by_memory
from memory.selectors.recall import (
    EntityAt,
    RecallFilters,
    Scope,
    TextCandidates,
    vector_literal,
)
from memory.selectors.recall_memories import sparse_literal
from memory.selectors.recall_terms import TextQuery, text_query
from memory.services.entities import entity_reinforce
from memory.services.memories import memories_reinforce
from memory.services.sql import commit_unwaited

Unit = Literal["entity", "memory"]
SNIPPET_CHARS = 240
EDGE = "edge:"


@dataclass
class Hit:
    kind: str  # entity | memory | fact
    ref: str  # entity key, memory id, fact id
    name: str
    score: float
    strength: float | None
    pinned: bool
    snippet: str
    relations: list[str] = field(default_factory=list)
    provenance: list[dict[str, str]] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    strategies: dict[str, float] = field(default_factory=dict)
    entity_id: int | None = None
    # An entity's: the memories mentioning it that full-text or the vector found, best
    # first (context assembly quotes them before the entity's latest).
    memories: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": self.kind, "score": round(self.score, 6),
            "strength": None if self.pinned else _finite(self.strength),
            "pinned": self.pinned, "snippet": self.snippet, "relations": self.relations,
            "provenance": self.provenance, "matched": self.matched,
            "strategies": self.strategies,
        }
        if self.kind == "entity":
            body.update(key=self.ref, name=self.name)
        else:
            body.update(id=self.ref, text=self.name)
        return body


@dataclass
class RecallResult:
    query: str
    unit: Unit
    hits: list[Hit]
    reinforced: int = 0
    strategies: tuple[str, ...] = ()


def _finite(value: float | None) -> float | None:
    return None if value is None or value == float("inf") else round(value, 6)


def _section(config: DecayConfig) -> RecallSection:
    if config.recall is None:
        raise Invalid("The configuration has no recall section.", code="config",
                      fields={"recall": "missing from config/decay.yaml"})
    return config.recall


def recall_run(
    *, query: str, unit: Unit = "entity", filters: RecallFilters | None = None,
    limit: int | None = None, as_of: datetime | None = None, include_faded: bool = False,
    reinforce: bool = True, strategies_on: Collection[str] | None = None,
    use_strength: bool = True, now: datetime | None = None, config: DecayConfig | None = None,
) -> RecallResult:
    """The best hits for `query`; `as_of` evaluates strengths and weights at that time (and
    sees only what existed then); the hits are reinforced at `now` unless `reinforce=False`."""
    config = config or config_get()
    section = _section(config)
    query = query.strip()
    if not query:
        raise Invalid("A query is required.", fields={"q": "This field is required."})
    limit = section.limit if limit is None else limit
    if not 1 <= limit <= section.max_limit:
        raise Invalid(f"limit must be within 1..{section.max_limit}.", fields={"limit": "range"})
    now = now or clock.now()
    filters = filters or RecallFilters()
    scope = Scope(filters=filters, at=as_of or now, temporal=as_of is not None,
                  project_entities=(strategies.project_entity_ids(project=filters.project)
                                    if filters.project and unit == "entity" else None))
    on = tuple(s for s in section.strategies if strategies_on is None or s in strategies_on)
    if unit == "memory":
        hits = _memory_hits(query=query, scope=scope, limit=limit, on=on,
                            use_strength=use_strength, section=section, config=config)
    else:
        hits = _entity_hits(query=query, scope=scope, limit=limit, on=on,
                            include_faded=include_faded, use_strength=use_strength,
                            section=section, config=config)
    reinforced = _reinforce(hits, now=now, config=config) if reinforce else 0
    return RecallResult(query=query, unit=unit, hits=hits, reinforced=reinforced, strategies=on)


def recall_prepare(*, query: str, config: DecayConfig | None = None) -> None:
    """Begin what the unit=entity recalls of `query` about to run at once share, so that
    none does it again: the query's encoding (in its thread) and its trigram grams' alias
    matches (read here, while it is encoded). A context's two recalls, within its project
    and beyond it, each read every new gram otherwise: most of a new prompt's lexical
    statement, twice, on two cores the encoder shares."""
    config = config or config_get()
    section = _section(config)
    query = query.strip()
    _query_literal_soon(query, section.strategies, config)
    if "trigram" in section.strategies:
        strategies.trigram_grams_keep(query=query, threshold=section.trigram_threshold)


# ---- entities --------------------------------------------------------------------------

# A query is often asked again soon (a context assembly recalls it with its project and
# without; a session start asks for its project's): its embedding is kept, per embedder.
QUERY_VECTORS_KEPT = 512


@functools.lru_cache(maxsize=QUERY_VECTORS_KEPT)
def _embedded(embedder: Embedder, query: str) -> tuple[float, ...]:
    return tuple(float(x) for x in embedder.embed_query([query])[0])


def _query_head(query: str, config: DecayConfig) -> str:
    """Its first vector_query_chars, cut at a word: encoding costs grow with the length (25
    ms at 108 characters, 549 ms at 1,728) and hold an encoding thread."""
    limit = _section(config).vector_query_chars
    head = query[:limit]
    if len(query) > limit and not query[limit].isspace():
        head = head.rsplit(None, 1)[0]
    return head


def _query_vector(query: str, config: DecayConfig) -> Sequence[float]:
    # An embedder is hashable by identity (one instance per name, a new one when registered
    # again); the Protocol does not say so.
    return _embedded(cast(Hashable, embedder_get(config.retain.embedder)),
                     _query_head(query, config))


def _sparse_literal(query: str, config: DecayConfig) -> str:
    return _sparse_of(_query_head(query, config))


@functools.lru_cache(maxsize=QUERY_VECTORS_KEPT)
def _sparse_of(query: str) -> str:
    encoder = sparse_encoder_get()
    ((indices, values),) = encoder.sparse([query])
    return sparse_literal(indices, values, encoder.dimension)


# The query's encoders, by the strategy that reads them: each a literal PostgreSQL reads.
_ENCODERS: dict[str, Callable[[str, DecayConfig], str]] = {
    "vector": lambda query, config: vector_literal(_query_vector(query, config)),
    "sparse": _sparse_literal,
}
# One thread each: an encoder computes outside the GIL while the other strategies'
# statements run in PostgreSQL, so a recall waits for the longest, not for their sum.
_ENCODING = ThreadPoolExecutor(max_workers=len(_ENCODERS), thread_name_prefix="recall-encode")


# The encodings under way, by (encoder, query, configuration): a recall of the same query
# meanwhile (a context assembly's two, at once) waits for the same one.
_under_way: dict[tuple[str, str, int], Future[Any]] = {}
_under_way_lock = threading.Lock()


def _encoding(name: str, encode: Callable[[str, DecayConfig], Any], query: str,
              config: DecayConfig) -> Future[Any]:
    key = (name, query, id(config))
    with _under_way_lock:
        future = _under_way.get(key)
        if future is None:
            future = _under_way[key] = _ENCODING.submit(encode, query, config)
    future.add_done_callback(lambda done: _forget(key, done))
    return future


def _forget(key: tuple[str, str, int], done: Future[Any]) -> None:
    with _under_way_lock:
        if _under_way.get(key) is done:
            del _under_way[key]


def _encoded_soon(query: str, on: tuple[str, ...],
                  config: DecayConfig) -> dict[str, Future[str]]:
    return {name: _encoding(name, encode, query, config)
            for name, encode in _ENCODERS.items() if name in on}


def _query_literal_soon(query: str, on: tuple[str, ...], config: DecayConfig
                        ) -> Future[str] | None:
    """The query's dense vector, as the literal PostgreSQL reads (unit=entity's only
    encoder)."""
    return _encoding("vector", _ENCODERS["vector"], query, config) if "vector" in on else None


# Each vector strategy's nearest (unit=memory: memories; unit=entity: names and memories)
# are read as soon as the query's encoding is ready, in a thread of their own, while the
# caller's lexical statements run and beside the other vector strategy's: on that thread's
# own database connection, so only outside a transaction (whose rows another connection
# cannot see). The exact scores of what the lexical statements found come after them.
_SCANNING = ThreadPoolExecutor(max_workers=len(_ENCODERS), thread_name_prefix="recall-scan")

Scanned = TypeVar("Scanned")


def _nearest_soon(encoding: Future[str], scan: Callable[..., Scanned]
                  ) -> Callable[[], Scanned]:
    """What `scan(literal=...)` of the encoding returns, when asked: begun in a scanning
    thread as soon as the encoding is ready, or run in the caller's thread when asked if the
    caller is in a transaction."""
    if connection.in_atomic_block:
        return lambda: scan(literal=encoding.result())
    return _SCANNING.submit(_scanned, encoding, scan).result


def _scanned(encoding: Future[str], scan: Callable[..., Scanned]) -> Scanned:
    close_old_connections()  # as a request does first: a connection gone stale is replaced
    return scan(literal=encoding.result())


def recall_warm(*, config: DecayConfig | None = None) -> None:
    """Make a web worker's first recall cost what the next ones do (at its start): load the
    query embedder (seconds) when the vector strategy is on; then, when the database answers,
    recall once in each unit without reinforcing and build the statements a recall compiles
    only when it finds something. What a process reads or builds once (the term statistics,
    the decay statements the ORM takes ~100 ms to compile) is then ready before a request
    needs it: a first context took 210-290 ms in process, 150-160 ms after this, ~110 ms for
    the next ones (bench/recall_latency.py's graph). Nothing is written; without a database
    (not up, not migrated) the first requests build them."""
    config = config or config_get()
    if "vector" in _section(config).strategies:
        _query_vector("warm-up", config)
    try:
        for unit in get_args(Unit):
            recall_run(query="warm-up", unit=unit, reinforce=False, config=config)
        _statements_built(config)
    except DatabaseError:
        return


def _statements_built(config: DecayConfig) -> None:
    """The ORM's statements a recall runs only when it finds something, built (and run) for
    entity 0, which no entity is: the graph's hops, the entities' rows, the reinforcement."""
    scope = Scope(filters=RecallFilters(), at=clock.now(), temporal=False)
    _graph(seeds={0: Fused(ref=0, relevance=1.0)}, scope=scope, include_faded=False,
           section=_section(config), config=config)
    _entity_rows([0], scope=scope, config=config)
    entity_reinforce(entity_ids=[0], config=config, bound=True)


def _text_query(query: str, section: RecallSection) -> TextQuery:
    return text_query(query=query, budget=section.fulltext_row_budget,
                      ttl_seconds=section.term_stats_seconds,
                      bm25=(section.bm25["k1"], section.bm25["b"]))


def _fulltext_entities(*, found: TextCandidates, section: RecallSection
                       ) -> tuple[list[Candidate], dict[int, list[int]]]:
    """Full-text over names, facts, memories and compiled truth, one list: an entity's
    score is its best source's rank times that source's worth."""
    n = section.candidates
    sources = section.fulltext_sources
    mentioned = found.mentioned
    lists = {"names": found.names, "facts": found.facts, "compiled": found.compiled,
             "memories": [Candidate(entity, c.score, f"memory {c.ref}")
                          for c in found.memories for entity in mentioned.get(_id(c.ref), [])]}
    best: dict[Ref, Candidate] = {}
    for source, candidates in lists.items():
        top = max((c.score for c in candidates), default=0.0) or 1.0
        for c in candidates:
            score = sources[source] * c.score / top
            if c.ref not in best or score > best[c.ref].score:
                best[c.ref] = Candidate(c.ref, score, c.via)
    ranked = sorted(best.values(), key=lambda c: (-c.score, str(c.ref)))
    return ranked[:n], mentioned


def _vector_entities(*, nearest: strategies.VectorCandidates, literal: str,
                     found_entities: Collection[int], found_memories: Mapping[int, list[int]]
                     ) -> tuple[list[Candidate], list[tuple[int, list[int]]], set[int]]:
    """The nearest names and memories, widened to the entities and memories the other
    strategies found (each scored exactly, in one statement: the union is ranked, not one
    strategy's pool); and those of the entities found whose name has no vector."""
    exact = strategies.vector_exact(literal=literal, entity_ids=found_entities,
                                    memory_ids=list(found_memories))
    names = _widened(nearest.names, exact.entity_similarity)
    mentioned = {**found_memories, **nearest.mentioned}
    memories = _widened(nearest.memories, exact.memory_similarity)
    best: dict[Ref, Candidate] = {c.ref: c for c in names}
    for c in memories:
        for entity in mentioned.get(_id(c.ref), []):
            if entity not in best or c.score > best[entity].score:
                best[entity] = Candidate(entity, c.score, f"memory {c.ref}")
    return (sorted(best.values(), key=lambda c: (-c.score, str(c.ref))),
            [(_id(c.ref), mentioned.get(_id(c.ref), [])) for c in memories],
            exact.unembedded - set(best))


def _widened(nearest: list[Candidate], exact: Mapping[int, float],
             kind: str | None = None) -> list[Candidate]:
    """The nearest neighbours plus the exactly scored candidates they lack, best first."""
    have = {_id(c.ref) for c in nearest}
    extra = [Candidate((kind, ident) if kind else ident, score)
             for ident, score in exact.items() if ident not in have]
    return sorted(nearest + extra, key=lambda c: (-c.score, str(c.ref)))


def _graph(*, seeds: Mapping[Ref, Fused], scope: Scope, include_faded: bool,
           section: RecallSection, config: DecayConfig) -> list[Candidate]:
    """Neighbours of the best candidates, one or two hops over (visible) relations."""
    frontier = {_id(ref): entry.relevance for ref, entry in seeds.items()}
    top = max(frontier.values(), default=0.0) or 1.0
    frontier = {ref: value / top for ref, value in frontier.items()}
    found: dict[int, Candidate] = {}
    # Two hops (the default) in one statement; any other number one statement a hop.
    both = strategies.edges_two_hops(
        seeds=frontier, at=scope.at, include_faded=include_faded, temporal=scope.temporal,
        config=config, limit=section.candidates * 4) if section.graph_hops == 2 else None
    for hop in range(section.graph_hops):
        edges = both[hop] if both is not None else strategies.edges_of(
            entity_ids=frontier, at=scope.at, include_faded=include_faded,
            temporal=scope.temporal, config=config, limit=section.candidates * 4)
        following: dict[int, float] = {}
        for edge in edges:
            for near, far in ((edge.source, edge.target), (edge.target, edge.source)):
                if near not in frontier or far in seeds:
                    continue
                score = frontier[near] * edge.weight * section.hop_decay
                via = f"{EDGE}{edge.source}:{edge.relation_type}:{edge.target}"
                if far not in found or score > found[far].score:
                    found[far] = Candidate(far, score, via)
                following[far] = max(following.get(far, 0.0), score)
        frontier = following
        if not frontier:
            break
    return sorted(found.values(), key=lambda c: (-c.score, str(c.ref)))[:section.candidates]


def _entity_rows(ids: Collection[int], *, scope: Scope, config: DecayConfig
                 ) -> dict[int, EntityAt]:
    return {entity.pk: entity for entity in strategies.entities_at(ids=ids, at=scope.at,
                                                                   config=config)}


def _entity_hits(*, query: str, scope: Scope, limit: int, on: tuple[str, ...],
                 include_faded: bool, use_strength: bool, section: RecallSection,
                 config: DecayConfig) -> list[Hit]:
    n = section.candidates
    literal = _query_literal_soon(query, on, config)
    nearest = None if literal is None else _nearest_soon(literal, functools.partial(
        strategies.vector_nearest, scope=scope, limit=n, ef_search=section.vector_ef_search))
    lists: dict[str, list[Candidate]] = {}
    mentioned: dict[int, list[int]] = {}
    said: list[tuple[int, list[int]]] = []  # (memory, the entities it mentions), best first
    unembedded: set[int] = set()  # found, with no vector of their name
    if "fulltext" in on or "trigram" in on:
        # full-text's four sources and trigram, in one statement
        lexical = strategies.text_candidates(
            text=_text_query(query, section) if "fulltext" in on else None, query=query,
            scope=scope, limit=n,
            trigram_threshold=section.trigram_threshold if "trigram" in on else None)
        if "fulltext" in on:
            lists["fulltext"], mentioned = _fulltext_entities(found=lexical, section=section)
            said = [(_id(c.ref), mentioned.get(_id(c.ref), [])) for c in lexical.memories]
        if "trigram" in on:
            lists["trigram"] = lexical.trigram
    if literal is not None and nearest is not None:
        found = {_id(c.ref) for candidates in lists.values() for c in candidates}
        lists["vector"], near_said, unembedded = _vector_entities(
            nearest=nearest(), literal=literal.result(), found_entities=found,
            found_memories=mentioned)
        said += near_said
    fused = _entities_fused(lists, unembedded, section=section)
    if "graph" in on and fused and section.graph_hops:
        seeds = dict(sorted(fused.items(), key=lambda kv: -kv[1].relevance)[:section.graph_seeds])
        lists["graph"] = _graph(seeds=seeds, scope=scope, include_faded=include_faded,
                                section=section, config=config)
        fused = _entities_fused(lists, unembedded, section=section, shares=("graph",))
    rows = _entity_rows([_id(ref) for ref in fused], scope=scope, config=config)
    fused = {ref: entry for ref, entry in fused.items() if _id(ref) in rows}
    strengths = {ref: _strength_of(rows[_id(ref)]) if use_strength else 0.0 for ref in fused}
    ranked = rank(fused, strengths, tiebreak=section.strength_tiebreak, limit=limit)
    names = {pk: entity.display_name for pk, entity in rows.items()}
    hits = [_entity_hit(rows[_id(entry.ref)], entry, score, names=names)
            for entry, score in ranked]
    by_entity = {hit.entity_id: hit for hit in hits}
    for memory_id, entity_ids in said:
        for entity_id in entity_ids:
            hit = by_entity.get(entity_id)
            if hit is not None and memory_id not in hit.memories:
                hit.memories.append(memory_id)
    return hits


def _entities_fused(lists: Mapping[str, Sequence[Candidate]], unembedded: Collection[int], *,
                    section: RecallSection, shares: Collection[str] = ()) -> dict[Ref, Fused]:
    """The lists fused; an entity whose name has no vector is given the vector's share its
    name's words earn in full-text and trigram."""
    fused = fuse(lists, weights=section.weights, method=section.fusion, rrf_k=section.rrf_k,
                 shares=shares)
    return unscored_filled(fused, unembedded, strategy="vector", weights=section.weights,
                           like=("fulltext", "trigram"))


def _strength_of(entity: EntityAt) -> float:
    """An entity's strength within [0, 1]; pinned counts as 1."""
    strength = entity.strength_now
    if strength is None:
        return 1.0 if entity.pinned else 0.0
    return _bounded(float(strength), pinned=entity.pinned)


def _bounded(strength: float, *, pinned: bool) -> float:
    """A strength within [0, 1] for the tie-break; pinned counts as 1."""
    return 1.0 if pinned or math.isinf(strength) else min(max(strength, 0.0), 1.0)


def _edge_text(via: str, names: Mapping[int, str]) -> str:
    source, relation_type, target = via.removeprefix(EDGE).split(":")
    return (f"{names.get(int(source), source)} -{relation_type}-> "
            f"{names.get(int(target), target)}")


def _entity_hit(entity: EntityAt, entry: Fused, score: float, *, names: Mapping[int, str]) -> Hit:
    relations = [_edge_text(via, names) for via in entry.via if via.startswith(EDGE)]
    matched = [via for via in entry.via if not via.startswith(EDGE)]
    snippet = next((via.removeprefix("fact: ") for via in matched if via.startswith("fact: ")),
                   entity.display_name)
    return Hit(kind="entity", ref=entity.key, name=entity.display_name, score=score,
               strength=entity.strength_now, pinned=entity.pinned,
               snippet=snippet[:SNIPPET_CHARS], relations=relations, matched=matched,
               strategies=entry.strategies, entity_id=entity.pk)


# ---- memories and facts ----------------------------------------------------------------

def _memory_hits(*, query: str, scope: Scope, limit: int, on: tuple[str, ...],
                 use_strength: bool, section: RecallSection, config: DecayConfig) -> list[Hit]:
    """Each strategy's candidates, one statement each: full-text's memories and facts while
    the query is encoded, each vector strategy's nearest as soon as its encoding is ready;
    then the union scored exactly by every strategy (one statement); fused, ranked with
    strength as a tie-break."""
    encoded = _encoded_soon(query, on, config)
    window = query_window(query, now=scope.at) if "time" in on else None
    fade = section.time_fade_days
    widened = (window.widened(before_days=fade["before"], after_days=fade["after"])
               if window is not None else None)
    nearest = {name: _nearest_soon(future, functools.partial(
        by_memory.memories_nearest, strategy=name, scope=scope, limit=section.candidates,
        ef_search=section.vector_ef_search, window=widened if name == "vector" else None))
        for name, future in encoded.items()}
    text = _text_query(query, section) if "fulltext" in on else None
    lexical: list[tuple[int, float]] = []
    facts: list[by_memory.FactFound] = []
    if text is not None:
        lexical = by_memory.fulltext_memories(text=text, scope=scope, limit=section.candidates)
        facts = by_memory.fulltext_facts_found(text=text, scope=scope,
                                               limit=section.candidates)
    ids = [ident for ident, _ in lexical] + [
        ident for found in nearest.values() for ident in found()]
    literals = {name: future.result() for name, future in encoded.items()}
    memories = by_memory.memories_scored(
        ids=ids, text=text, vector=literals.get("vector"), sparse=literals.get("sparse"),
        turn_gap_minutes=config.memories.conversation_gap_minutes if section.adjacent_share
        else None)
    lists = _exact_lists(memories, ran=(*literals, *(["fulltext"] if text else [])))
    if facts:
        lists["fulltext"] = _with_facts(lists.get("fulltext", []), facts, section)
    if window is not None:
        lists["time"] = _nearness(window, memories, section)
    fused = fuse(lists, weights=_memory_weights(section), method=section.memory_fusion,
                 rrf_k=section.rrf_k, shares=("time",))
    if section.adjacent_share:
        fused = adjacent_lifted(fused, [(("memory", pk), ("memory", m.previous))
                                        for pk, m in memories.items() if m.previous],
                                share=section.adjacent_share)
    strengths = _memory_strengths(memories, at=scope.at, config=config)
    return _memory_ranked(fused, memories=memories, facts={f.id: f for f in facts},
                          strengths=strengths, limit=limit, use_strength=use_strength,
                          section=section)


def _with_facts(memories: list[Candidate], facts: Sequence[by_memory.FactFound],
                section: RecallSection) -> list[Candidate]:
    """Full-text's memories and the facts not drawn only from memories, one list: a fact's
    rank as a share of the best fact's, times the best memory's score and the facts' worth.
    (A fact restating what was said gives its place to the memories that said it, found by
    their own words: a fact and its memory would otherwise take two places in the answer
    for one thing said, and a memory found through a claim drawn from it ranked worse on
    REALTALK.)"""
    top_fact = max((f.rank for f in facts), default=0.0) or 1.0
    top = (memories[0].score if memories else 1.0) * section.fulltext_sources["facts"]
    merged = memories + [Candidate(("fact", f.id), top * f.rank / top_fact) for f in facts
                         if not f.from_memories]
    return sorted(merged, key=lambda c: (-c.score, str(c.ref)))


def _nearness(window: Window, memories: Mapping[int, by_memory.MemoryFound],
              section: RecallSection) -> list[Candidate]:
    """Each candidate's nearness to the time the query names (within [0, 1]), taken as it
    is: 1 adds the strategy's whole weight."""
    fade = section.time_fade_days
    near = [Candidate(("memory", pk), window.nearness(m.occurred_at, before_days=fade["before"],
                                                      after_days=fade["after"]))
            for pk, m in memories.items()]
    return sorted(near, key=lambda c: (-c.score, str(c.ref)))


# A memory's vectors in the context of the turn it answers: their lists are named so.
IN_CONTEXT = "_context"


def _memory_weights(section: RecallSection) -> dict[str, float]:
    """unit=memory's weights: the vector's and the sparse strategy's shared between a
    memory alone and in its context (`context_share`)."""
    weights = dict(section.weights)
    for strategy in ("vector", "sparse"):
        whole = weights[strategy]
        weights[strategy] = whole * (1 - section.context_share)
        weights[f"{strategy}{IN_CONTEXT}"] = whole * section.context_share
    return weights


def _exact_lists(memories: Mapping[int, by_memory.MemoryFound],
                 ran: Collection[str]) -> dict[str, list[Candidate]]:
    """Each strategy's exact scores over the whole union, best first; the vector's centred
    per language."""
    lists: dict[str, list[Candidate]] = {}
    for strategy in ("fulltext", "vector", "sparse"):
        if strategy not in ran:
            continue
        names = (strategy,) if strategy == "fulltext" else (strategy, f"{strategy}{IN_CONTEXT}")
        for name in names:
            scored = [Candidate(("memory", pk), value) for pk, m in memories.items()
                      if (value := getattr(m, name)) is not None]
            lists[name] = sorted(scored, key=lambda c: (-c.score, str(c.ref)))
    languages: dict[Ref, str] = {("memory", pk): m.language for pk, m in memories.items()}
    for name in ("vector", f"vector{IN_CONTEXT}"):
        if name in lists:
            lists[name] = language_centred(lists[name], languages)
    return lists


def _memory_strengths(memories: Mapping[int, by_memory.MemoryFound], *, at: datetime,
                      config: DecayConfig) -> dict[int, float]:
    """Each memory's strength at `at` (the decay formulas; a memory has no feedback and
    keeps the normal route); infinite when pinned."""
    return {pk: entity_strength(
        EntityState(base=m.base, half_life_days=m.half_life_days, valence=m.valence,
                    retrieval_count=m.retrieval_count, pinned=m.pinned),
        last_reinforced_at=m.last_reinforced_at, now=at, config=config)
        for pk, m in memories.items()}


def _memory_ranked(fused: Mapping[Ref, Fused], *, memories: Mapping[int, by_memory.MemoryFound],
                   facts: Mapping[int, by_memory.FactFound], strengths: Mapping[int, float],
                   limit: int, use_strength: bool, section: RecallSection) -> list[Hit]:
    tiebreak: dict[Ref, float] = {}
    for ref in fused:
        kind, ident = _ref(ref)
        if kind == "memory" and ident in memories:
            tiebreak[ref] = (_bounded(strengths[ident], pinned=memories[ident].pinned)
                             if use_strength else 0.0)
        elif kind == "fact" and ident in facts:
            tiebreak[ref] = 1.0 if facts[ident].entity_pinned else 0.0
    kept = {ref: entry for ref, entry in fused.items() if ref in tiebreak}
    hits: list[Hit] = []
    said: dict[tuple[str, str], Hit] = {}
    for entry, score in rank(kept, tiebreak, tiebreak=section.strength_tiebreak,
                             limit=len(kept)):
        kind, ident = _ref(entry.ref)
        hit = (_memory_hit(memories[ident], entry, score, strengths[ident])
               if kind == "memory" else _fact_hit(facts[ident], entry, score))
        # The same words stored twice are one hit, with both provenances.
        same = said.get((hit.kind, hit.name))
        if same is not None:
            same.provenance += hit.provenance
        elif len(hits) < limit:
            said[(hit.kind, hit.name)] = hit
            hits.append(hit)
    return hits


def _id(ref: Ref) -> int:
    return ref if isinstance(ref, int) else ref[1]


def _ref(ref: Ref) -> tuple[str, int]:
    if isinstance(ref, int):
        return "entity", ref
    return ref


def _memory_hit(memory: by_memory.MemoryFound, entry: Fused, score: float,
                strength: float) -> Hit:
    provenance = [{"event_id": memory.event_id, "source_id": memory.source_id,
                   "source": memory.source}]
    return Hit(kind="memory", ref=str(memory.id), name=memory.text, score=score,
               strength=strength, pinned=memory.pinned, snippet=memory.text[:SNIPPET_CHARS],
               provenance=provenance, strategies=entry.strategies)


def _fact_hit(fact: by_memory.FactFound, entry: Fused, score: float) -> Hit:
    provenance = [{"event_id": eid, "source": source, "source_id": source_id}
                  for eid, source, source_id in fact.sources]
    claim = fact.claim if fact.polarity > 0 else f"not: {fact.claim}"
    return Hit(kind="fact", ref=str(fact.id), name=claim, score=score, strength=None,
               pinned=fact.entity_pinned, snippet=f"{fact.entity_name}: {claim}"[
                   :SNIPPET_CHARS], provenance=provenance, matched=[fact.entity_key],
               strategies=entry.strategies, entity_id=fact.entity_id)


# ---- reinforcement ---------------------------------------------------------------------

def _reinforce(hits: Sequence[Hit], *, now: datetime, config: DecayConfig) -> int:
    """Each returned hit once: entities (and the entities of fact hits) in one statement,
    memories in one statement, one transaction whose commit does not wait for the disk."""
    entity_ids = {h.entity_id for h in hits if h.entity_id is not None}
    memory_ids = {int(h.ref) for h in hits if h.kind == "memory"}
    if not entity_ids and not memory_ids:
        return 0
    with transaction.atomic():
        commit_unwaited()
        count = entity_reinforce(entity_ids=entity_ids, now=now, config=config, bound=True)
        return count + memories_reinforce(memory_ids=list(memory_ids), now=now)


def query_encoders(*, config: DecayConfig | None = None) -> dict[str, Callable[[str], str]]:
    """Each encoder a recall runs on its query, by name (what bench/ times bare)."""
    config = config or config_get()
    on = _section(config).strategies

    def bound(encode: Callable[[str, DecayConfig], str]) -> Callable[[str], str]:
        return lambda query: encode(query, config)

    return {name: bound(encode) for name, encode in _ENCODERS.items() if name in on}
