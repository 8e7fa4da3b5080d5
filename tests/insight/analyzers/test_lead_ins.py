"""A rule after a lead-in ("I said it before: never use X", "Rappel : ...", "Again - ...")
is still a rule; a lead-in with no rule after it states none."""

from __future__ import annotations

import pytest

from insight.analyzers.instructions import claims_in


@pytest.mark.parametrize(("text", "language", "claim", "polarity"), [
    ("I said it before: never use leftpad in this project.", "en", "use leftpad", "negative"),
    ("Again - always run the tests first.", "en", "run tests first", "positive"),
    ("Je te l'ai déjà dit : n'utilise jamais leftpad.", "fr", "use leftpad", "negative"),
])
def test_a_rule_after_a_lead_in(text: str, language: str, claim: str, polarity: str) -> None:
    assert [(c.text, c.polarity) for c in claims_in(text, language)] == [(claim, polarity)]


def test_a_lead_in_alone_states_no_rule() -> None:
    assert claims_in("Note: the build takes 3 minutes.", "en") == []
