"""Turn-based working-set memories (SPEC section 12): the decay engine, its baselines,
and `decaybench`. Pure Python: nothing here imports Django."""
