"""The background embedding pass over free-text memories (docs/memories.md): the embedder is
slow, so memories are searchable by text as soon as they are consolidated and get their
vector here, oldest first, a batch at a time (each batch commits on its own)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from django.db import connection

from memory import clock
from memory.config import DecayConfig, config_get
from memory.models.embeddings import EMBEDDING_DIMENSION
from memory.models.memories import Memory
from memory.retain.embedders import Embedder, embedder_get, sparse_encoder_get

# The model reads at most 512 tokens: more text changes nothing but the time it takes.
MAX_EMBEDDED_CHARS = 2000

_STORE = """
WITH v AS (
    SELECT * FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS v(memory_id, vector, sparse)
), stored AS (
    INSERT INTO memory_memoryembedding (memory_id, vector, sparse, model, dimension,
                                        embedded_at)
    SELECT v.memory_id, v.vector::vector, v.sparse::sparsevec, %s, %s, %s FROM v
    JOIN memory_memory AS m ON m.id = v.memory_id
    ON CONFLICT (memory_id) DO UPDATE SET vector = EXCLUDED.vector, sparse = EXCLUDED.sparse,
        model = EXCLUDED.model, dimension = EXCLUDED.dimension,
        embedded_at = EXCLUDED.embedded_at
    RETURNING memory_id
)
UPDATE memory_memory SET embedded = true WHERE id IN (SELECT memory_id FROM stored)
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


def sparse_text(indices: Iterable[int], values: Iterable[float], dimension: int) -> str:
    """pgvector's sparsevec literal (its indices count from 1)."""
    terms = ",".join(f"{int(i) + 1}:{float(v):.6g}" for i, v in zip(indices, values, strict=True))
    return f"{{{terms}}}/{dimension}"


def _sparse_texts(texts: list[str]) -> list[str]:
    encoder = sparse_encoder_get()
    return [sparse_text(indices, values, encoder.dimension)
            for indices, values in encoder.sparse(texts)]


def memory_embed_pending(*, config: DecayConfig | None = None, limit: int | None = None) -> int:
    """Embed memories not embedded yet (oldest first); returns how many."""
    config = config or config_get()
    embedder = embedder_get(config.retain.embedder)
    if embedder.dimension != EMBEDDING_DIMENSION:
        raise ValueError(f"embedder {embedder.model_id} has {embedder.dimension} dimensions; "
                         f"the column holds {EMBEDDING_DIMENSION} (a migration is needed)")
    size = config.memories.embed_batch_size
    done = 0
    while limit is None or done < limit:
        take = size if limit is None else min(size, limit - done)
        rows = list(Memory.objects.filter(embedded=False).order_by("id")
                    .values_list("id", "text")[:take])
        if not rows:
            break
        vectors = _embedded(embedder, [text[:MAX_EMBEDDED_CHARS] for _, text in rows])
        with connection.cursor() as cursor:
            cursor.execute(_STORE, [[pk for pk, _ in rows], [dense for dense, _ in vectors],
                                    [sparse for _, sparse in vectors], embedder.model_id,
                                    embedder.dimension, clock.now()])
        done += len(rows)
    return done
