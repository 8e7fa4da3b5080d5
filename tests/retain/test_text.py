"""Normalisation for aliases; lemmas, polarity and Jaccard for claims, in English and French."""

from __future__ import annotations

import pytest

from memory.retain.extraction import slug_of
from memory.retain.names import name_embedding_text, names_agree
from memory.retain.text import content_lemmas, jaccard, normalize, polarity


@pytest.mark.parametrize(("left", "right"), [
    ("Anya Petrová", "anya petrova"),
    ("  ANYA   PETROVA!", "anya petrova"),
    ("Jean-Pierre", "jean pierre"),
    ("l'équipe", "lequipe"),
])
def test_the_alias_form_ignores_case_accents_punctuation_and_spaces(left: str,
                                                                    right: str) -> None:
    assert normalize(left) == right


@pytest.mark.parametrize(("affirmed", "negated"), [
    ("X is reliable", "X n'est pas fiable"),
    ("use uv", "never use uv"),
    ("always use pnpm", "n'utilise jamais pnpm"),
    ("Postgres est fiable", "Postgres isn't reliable"),
    ("utilise les mocks dans les tests", "don't use mocks in tests"),
])
def test_a_claim_and_its_negation_share_their_lemmas_and_differ_in_polarity(
    affirmed: str, negated: str
) -> None:
    assert jaccard(content_lemmas(affirmed), content_lemmas(negated)) == 1.0
    assert (polarity(affirmed), polarity(negated)) == (1, -1)


def test_plus_alone_means_more_not_a_negation() -> None:
    assert polarity("c'est plus rapide") == 1
    assert polarity("n'utilise plus pip") == -1


def test_jaccard_of_different_subjects_is_low() -> None:
    overlap = jaccard(content_lemmas("use uv"), content_lemmas("never use pip"))
    assert overlap == pytest.approx(1 / 3)
    assert jaccard(frozenset(), frozenset()) == 0.0


@pytest.mark.parametrize(("name", "slug"), [
    ("Anya Petrova", "anya-petrova"),
    ("Bash(npm test:*)", "bash-npm-test"),
    ("billing-api/src/app.py", "billing-api-src-app.py"),
    ("Élodie", "elodie"),
])
def test_slugs_are_key_safe(name: str, slug: str) -> None:
    assert slug_of(name) == slug


def test_a_long_name_gets_a_bounded_slug_with_a_hash() -> None:
    slug = slug_of("x" * 500)
    assert len(slug) <= 120 and slug != slug_of("x" * 499)
    assert slug_of("!!!") and ":" not in slug_of("a:b")


@pytest.mark.parametrize(("left", "right", "same"), [
    ("Anya Petrova", "Petrova, Anya", True),
    ("Anya Petrova", "A. Petrova", True),
    ("Anya Petrová", "anya petrova", True),
    ("Anya Petrova", "Anna Petrov", False),
    ("Anya Petrova", "Anya", False),
    ("Anya Petrova", "Maria Petrova", False),
    ("A. P.", "Anya Petrova", False),
])
def test_person_names_agree_token_by_token(left: str, right: str, same: bool) -> None:
    assert names_agree(left, right) is same


@pytest.mark.parametrize(("name", "namespace", "text"), [
    ("billing-api/src/users_old.py", "world:artifact", ""),
    ("~/.claude/CLAUDE.md", "world:artifact", ""),
    ("/etc/nginx/nginx.conf", "world:artifact", ""),
    ("zod", "world:artifact", "zod"),
    ("CI/CD", "world:concept", "CI/CD"),
    ("x" * 400, "world:concept", "x" * 300),
])
def test_a_file_path_is_not_embedded(name: str, namespace: str, text: str) -> None:
    assert name_embedding_text(name, namespace=namespace,
                               path_names=["world:artifact"]) == text
