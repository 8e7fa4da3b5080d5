"""The Retain Job's last guard: an entity keyed by a correlation id is refused, with what
hangs on it; readable slugs (and a short digest after them) pass."""

from __future__ import annotations

import pytest

from insight.handlers.tool_errors import readable_slug
from memory.retain.extraction import (
    EntitySpec,
    Extraction,
    FactSpec,
    RelationSpec,
    id_shaped,
    slug_of,
)


@pytest.mark.parametrize("slug", [
    "3430b97e", "claude-code-a36efb2a1231c41e2", "7acd37a8-2745-4b58-a8a9-46164b22ad9e",
    "toolu_016hf6djbsahygjrx7q7kjbs", "req_011cv8sxyz", "msg_01abcdef99",
    "01jxyz8k9m2n3p4q5r6s7t8v9w", "agent-ab1e6e14-work-notes.md",
])
def test_ids_are_refused(slug: str) -> None:
    assert id_shaped(slug)


@pytest.mark.parametrize("slug", [
    "use-pnpm", "bash-npm-install", "file-not-read-yet-590540", "report-20250601.md",
    "python3.11", "lib.es2022.error.d.ts", "deadbeefcafe", "sha256-hashes",
])
def test_readable_slugs_pass(slug: str) -> None:
    assert not id_shaped(slug)


def test_a_long_name_ends_in_a_digest_shorter_than_an_id() -> None:
    slug = slug_of("a very long name " * 20)
    assert len(slug) <= 120 and not id_shaped(slug)


def test_the_guard_drops_the_entity_and_what_hangs_on_it() -> None:
    extraction = Extraction(
        entities=(EntitySpec(ref="agent", namespace="agent", name="claude-code",
                             key="agent:claude-code"),
                  EntitySpec(ref="run", namespace="agent:claude-code",
                             name="claude-code:3430b97e")),
        relations=(RelationSpec("agent", "run", "relates_to"),),
        facts=(FactSpec(entity="run", claim="ran", polarity=1),),
    )
    kept = extraction.without_ids()
    assert [e.ref for e in kept.entities] == ["agent"]
    assert kept.relations == () and kept.facts == ()


def test_a_root_cause_slug_reads_as_its_error() -> None:
    message = "file has not been read yet. read it first before writing to it."
    assert readable_slug("Edit", message, "590540888643e15f") == "file-not-read-yet-590540"
    assert readable_slug("Bash", "error", "cd3c30aa") == "bash-error-cd3c30"
