"""Turn-based working-set memories (docs/working-set.md): the decay engine, its baselines,
and `decaybench`. Pure Python: nothing here imports Django."""
