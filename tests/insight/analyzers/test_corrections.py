from __future__ import annotations

import pytest

from insight.analyzers.corrections import analyze
from tests.insight.analyzers.factories import assistant_text, interrupt, prompt, tool_result


@pytest.mark.parametrize(
    ("text", "kind", "language"),
    [
        ("No, that's wrong.", "negation", "en"),
        ("Nope", "negation", "en"),
        ("Revert the last change please", "undo", "en"),
        ("Undo that", "undo", "en"),
        ("Stop! Don't push.", "stop", "en"),
        ("You deleted my config file", "reproach", "en"),
        ("Why did you change the schema?", "reproach", "en"),
        ("It still doesn't work", "still_failing", "en"),
        ("non, c'est faux", "negation", "fr"),
        ("Non.", "negation", "fr"),
        ("c'est pas ça", "negation", "fr"),
        ("annule", "undo", "fr"),
        ("Reviens en arrière, s'il te plaît", "undo", "fr"),
        ("Arrête tout de suite", "stop", "fr"),
        ("Tu as cassé le build", "reproach", "fr"),
        ("Je t'ai dit de ne pas toucher à ça", "reproach", "fr"),
        ("Ça marche toujours pas", "still_failing", "fr"),
    ],
)
def test_the_operator_saying_no_is_a_correction(text: str, kind: str, language: str) -> None:
    (found,) = analyze([prompt(text, parent="assistant-uuid")])
    assert found.category == "correction"
    assert found.target_namespace == "agent:claude-code:failure-mode"
    assert (found.payload["kind"], found.payload["language"]) == (kind, language)
    assert found.payload["corrects"] == "assistant-uuid"
    assert found.sentiment in {"negative", "critical"}


@pytest.mark.parametrize("text", [
    "No problem, thanks!", "Non merci, c'est bon.", "Non-blocking IO please.",
    "Great job", "Super, merci !", "Add a test for the parser.",
])
def test_other_prompts_are_not_corrections(text: str) -> None:
    assert analyze([prompt(text)]) == []


def test_an_interrupt_is_a_correction_wherever_it_happens() -> None:
    plain, during_tool = interrupt(), interrupt(for_tool=True, thread="agent-7")
    found = analyze([plain, during_tool])
    assert [d.payload["kind"] for d in found] == ["interrupt", "interrupt"]
    assert [d.payload["during"] for d in found] == ["", "tool_use"]
    assert found[1].payload["agent"] == "claude-code:agent-7"


def test_a_refused_tool_call_is_a_rejection_with_the_operators_reason() -> None:
    text = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). The user "
            "provided the following reason for the rejection:  utilise pnpm, pas npm")
    (found,) = analyze([tool_result(text, use_id="toolu_1", is_error=True)])
    assert found.payload["kind"] == "rejection"
    assert found.payload["text"] == "utilise pnpm, pas npm"
    assert found.payload["language"] == "fr"
    assert found.payload["tool_use_id"] == "toolu_1"


def test_the_agent_saying_no_is_not_a_correction() -> None:
    assert analyze([assistant_text("No, that approach will not work.")]) == []
