"""What `cortex demo` ends with on the read path: one recall and one context block on its
corpus, as an agent would get them (docs/recall.md)."""

from __future__ import annotations

from insight.demo.finishers import DemoContext, DemoSection
from memory.services.context import context_assemble
from memory.services.recall import recall_run

RECALL_QUERY = "which package manager should I use to install dependencies?"
CONTEXT_QUERY = "Ajoute un retry avec backoff au client HTTP"
CONTEXT_PROJECT = "billing-api"


def demo_recall(context: DemoContext) -> DemoSection:
    result = recall_run(query=RECALL_QUERY, limit=5, now=context.as_of)
    rows = [[hit.ref, "pinned" if hit.pinned else round(hit.strength or 0.0, 3),
             round(hit.score, 3), hit.snippet[:60]] for hit in result.hits]
    return DemoSection(title=f"Recall: {RECALL_QUERY!r} (reinforced)",
                       columns=["key", "strength", "score", "snippet"], rows=rows)


def demo_context(context: DemoContext) -> DemoSection:
    result = context_assemble(query=CONTEXT_QUERY, agent="claude-code",
                              project=CONTEXT_PROJECT, budget_tokens=600, now=context.as_of)
    rows = [[e.key, e.section, "pinned" if e.pinned else round(e.strength or 0.0, 3), e.tokens]
            for e in result.entities]
    notes = [result.context.strip() or "(nothing to inject)",
             f"{result.tokens_used} of {result.budget_tokens} tokens; "
             f"{len(result.dropped)} dropped for budget"]
    return DemoSection(title=f"Context for {CONTEXT_PROJECT}: {CONTEXT_QUERY!r}",
                       columns=["key", "section", "strength", "tokens"], rows=rows, notes=notes)
