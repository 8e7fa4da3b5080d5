"""The background embedding pass over free-text memories (docs/memories.md): the embedder is
slow, so memories are searchable by text as soon as they are consolidated and get their
vector here, oldest first, a batch at a time (each batch commits on its own)."""

from __future__ import annotations

from collections import OrderedDict

from django.db import connection

from memory import clock
from memory.config import DecayConfig, config_get
from memory.models.embeddings import EMBEDDING_DIMENSION
from memory.retain.embedders import Embedder, embedder_get, sparse_encoder_get
from memory.selectors.memories import previous_turn_sql
from memory.selectors.recall_memories import sparse_literal

# The model reads at most 512 tokens: more text changes nothing but the time it takes.
MAX_EMBEDDED_CHARS = 2000

_STORE = """
WITH v AS (
    SELECT * FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[])
        AS v(memory_id, vector, sparse, context_vector, context_sparse)
), stored AS (
    INSERT INTO memory_memoryembedding (memory_id, vector, sparse, context_vector,
                                        context_sparse, model, dimension, embedded_at)
    SELECT v.memory_id, v.vector::vector, v.sparse::sparsevec, v.context_vector::vector,
           v.context_sparse::sparsevec, %s, %s, %s FROM v
    JOIN memory_memory AS m ON m.id = v.memory_id
    ON CONFLICT (memory_id) DO UPDATE SET vector = EXCLUDED.vector, sparse = EXCLUDED.sparse,
        context_vector = EXCLUDED.context_vector, context_sparse = EXCLUDED.context_sparse,
        model = EXCLUDED.model, dimension = EXCLUDED.dimension,
        embedded_at = EXCLUDED.embedded_at
    RETURNING memory_id
)
UPDATE memory_memory SET embedded = true WHERE id IN (SELECT memory_id FROM stored)
"""

# The memories waiting for their vectors, oldest first, each with the turn it answers: the
# latest memory before it in the same conversation (project, source and, when its metadata
# names one, session) within `gap` (a reply often lacks its subject: "Yes, twice!"), with
# or without a speaker (unlike recall's adjacent lift, which joins spoken turns only: notes
# without a speaker embedded alone ranked worse on bench/recall_quality.py); and its own
# vectors when they were computed before by the same model (only the context's are missing
# then, as after migration 0029).
_PENDING = f"""
SELECT m.id, m.text, {previous_turn_sql("m", "p.text")}, v.vector::text, v.sparse::text
FROM memory_memory m
LEFT JOIN memory_memoryembedding v
    ON v.memory_id = m.id AND v.model = %s AND v.sparse IS NOT NULL
WHERE NOT m.embedded ORDER BY m.id LIMIT %s
"""


# The same words give the same vectors: a conversation repeats its small talk ("ok",
# "thanks", "how was your weekend?") thousands of times, and each was embedded again.
RECENT_TEXTS = 20_000
# (model id, text) -> (the dense vector's literal, the sparse vector's literal)
_recent: OrderedDict[tuple[str, str], tuple[str, str]] = OrderedDict()


def _embedded(embedder: Embedder, texts: list[str]) -> list[tuple[str, str]]:
    """Each text's dense and sparse vectors (as literals), each distinct text embedded once
    (the most recent ones kept)."""
    model = embedder.model_id
    missing = list(dict.fromkeys(t for t in texts if (model, t) not in _recent))
    if missing:
        dense = [_vector_text(v) for v in embedder.embed(missing)]
        _recent.update(zip(((model, t) for t in missing),
                           zip(dense, _sparse_texts(missing), strict=True), strict=True))
    vectors = []
    for text in texts:
        _recent.move_to_end((model, text))
        vectors.append(_recent[(model, text)])
    while len(_recent) > RECENT_TEXTS:
        _recent.popitem(last=False)
    return vectors


def _vector_text(row: object) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in row) + "]"  # type: ignore[attr-defined]


def _sparse_texts(texts: list[str]) -> list[str]:
    encoder = sparse_encoder_get()
    return [sparse_literal(indices, values, encoder.dimension)
            for indices, values in encoder.sparse(texts)]


def _in_context(text: str, previous: str) -> str:
    """A memory as the reply it is: the turn it answers, then its own words (its own kept
    whole when the two are longer than the model reads)."""
    room = max(MAX_EMBEDDED_CHARS - len(text) - 1, 0)
    return (previous[-room:] + "\n" + text)[-MAX_EMBEDDED_CHARS:] if room else text[
        :MAX_EMBEDDED_CHARS]


def memory_embed_pending(*, config: DecayConfig | None = None, limit: int | None = None) -> int:
    """Embed memories not embedded yet (oldest first), each alone and in the context of the
    turn it answers (when it answers one); returns how many."""
    config = config or config_get()
    embedder = embedder_get(config.retain.embedder)
    if embedder.dimension != EMBEDDING_DIMENSION:
        raise ValueError(f"embedder {embedder.model_id} has {embedder.dimension} dimensions; "
                         f"the column holds {EMBEDDING_DIMENSION} (a migration is needed)")
    size = config.memories.embed_batch_size
    gap = config.memories.conversation_gap_minutes
    done = 0
    while limit is None or done < limit:
        take = size if limit is None else min(size, limit - done)
        with connection.cursor() as cursor:
            # in the statement's order: the previous turn's gap (its select list) first
            cursor.execute(_PENDING, [gap, embedder.model_id, take])
            rows = cursor.fetchall()
        if not rows:
            break
        missing = [i for i, row in enumerate(rows) if row[3] is None]
        computed = dict(zip(missing, _embedded(
            embedder, [rows[i][1][:MAX_EMBEDDED_CHARS] for i in missing]), strict=True))
        own = [computed.get(i) or (row[3], row[4]) for i, row in enumerate(rows)]
        answering = [(i, _in_context(row[1], row[2])) for i, row in enumerate(rows) if row[2]]
        context = dict(zip((i for i, _ in answering),
                           _embedded(embedder, [text for _, text in answering]), strict=True))
        with connection.cursor() as cursor:
            cursor.execute(_STORE, [
                [row[0] for row in rows], [dense for dense, _ in own],
                [sparse for _, sparse in own],
                [context[i][0] if i in context else None for i in range(len(rows))],
                [context[i][1] if i in context else None for i in range(len(rows))],
                embedder.model_id, embedder.dimension, clock.now()])
        done += len(rows)
    return done
