"""Layer 3, pure: a typed snapshot of one entity in, its compiled-truth markdown out
(docs/compiled-truth.md). No ORM, no clock, no filesystem."""
