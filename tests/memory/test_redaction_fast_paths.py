"""The shortcuts redaction takes must change no result: each is checked against the plain way
(every rule over the whole text; sanitize then serialize) on random and hostile input."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory import redaction
from memory.redaction import MAX_DEPTH, TooDeep, redact, sanitize, sanitize_json
from memory.redaction_scan import (
    WORDS,
    assignment_starts,
    fold,
    hits,
    json_has_trigger,
)
from tests.memory.test_redaction import SECRETS, SEPARATORS

NAME_TEXT = string.ascii_letters + string.digits + "_.-=:\"' \n"
PIECES = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=NAME_TEXT, max_size=30),
    st.sampled_from([
        "token", "TOKEN", "tokens", "Tokenize", "secret", "SECRET_KEY", "api_key", "API-KEY",
        "password", "passwd", "credentials", "Authorization", "bearer ", "://", "@", "=", ": ",
        '"', "'", "export ", "private_key", "access-key", "-----BEGIN RSA PRIVATE KEY-----",
        "sk-", "eyJ", "[REDACTED:secret-assignment]", "refresh_token", "a.b-c", "xoxb-", "AKIA",
        "ghp_", "hooks.slack.com/services/", "\u0130", "\u0131", "\u017f", "\u212a", "\x00",
    ]),
    SECRETS.map(lambda case: case[1]),
    SEPARATORS,
)
TEXTS = st.lists(PIECES, max_size=14).map("".join)
# Where the named secret-assignment rule's matches begin: a quote, a run of name characters,
# a secret name.
_NAME_PREFIX = re.compile(
    r"(?i)(?<![A-Za-z0-9_])[\"']?[a-z0-9_.-]*" + redaction._SECRET_NAME
)


def _plain_redact(text: str) -> tuple[str, int]:
    """Every rule over the whole text, pass after pass: what redact must agree with."""
    counter = [0]
    for _ in range(4):
        before = text
        text = redaction._full_pass(text, counter)
        if text == before:
            break
    return text, counter[0]


@given(TEXTS)
@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
def test_redact_agrees_with_every_rule_over_the_whole_text(text: str) -> None:
    redaction._CLEAN_CACHE.clear()
    assert redact(text) == _plain_redact(text)


@given(st.lists(st.sampled_from(["a", ".", "-", "_", "'", '"', " ", "token", "secret"]),
                max_size=40).map("".join))
@settings(max_examples=2000, deadline=None)
def test_names_runs_and_quotes_find_every_start_the_rule_can_match_at(text: str) -> None:
    folded = fold(text)
    names = [index for word, index in hits(folded) if word in redaction._SECRET_WORDS]
    starts = set(assignment_starts(folded, names))
    for index in range(len(text) + 1):
        if _NAME_PREFIX.match(text, index):
            assert index in starts


def test_the_four_letters_the_regex_engine_folds_to_ascii_are_folded() -> None:
    # "paſsword" is "password" to a (?i) rule, so it must reach the rules.
    text = "pa\u017fsword: hunter2hunter2 and \u0130NTERNAL_TO\u212aEN=abc123def456"
    assert len(fold(text)) == len(text)
    redacted, count = redact(text)
    assert "hunter2hunter2" not in redacted and count >= 1
    assert redact(redacted) == (redacted, 0)


def test_every_secret_field_name_holds_a_trigger_word() -> None:
    # The JSON-level shortcut relies on it: a payload whose text has no trigger word has no
    # secret-named key.
    for name in redaction.SECRET_FIELD_NAMES:
        assert hits(fold(name)), name
        assert json_has_trigger(orjson.dumps({name: "x"})), name


def test_each_rule_is_reached_through_its_trigger_words() -> None:
    for rule in redaction.RULES:
        assert rule.words
        for literal in rule.words:
            assert literal.lower() in WORDS, (rule.kind, literal)


SIMPLE = st.text(alphabet=string.ascii_letters, min_size=1, max_size=8)
JSON_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), TEXTS, SIMPLE,
)
KEYS = st.one_of(TEXTS, SIMPLE, st.sampled_from(sorted(redaction.SECRET_FIELD_NAMES)),
                 st.integers())
PAYLOADS = st.dictionaries(
    KEYS,
    st.recursive(
        JSON_LEAVES,
        lambda inner: st.one_of(st.lists(inner, max_size=4),
                                st.tuples(inner, inner),
                                st.dictionaries(KEYS, inner, max_size=4)),
        max_leaves=20,
    ),
    max_size=5,
)


def _plain_json(payload: Mapping[Any, object]) -> tuple[bytes, int]:
    clean, count = sanitize(dict(payload))
    try:
        return orjson.dumps(clean), count
    except TypeError:
        return json.dumps(clean, default=str, ensure_ascii=False).encode(), count


@given(PAYLOADS)
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
def test_sanitize_json_is_sanitize_then_serialize(payload: dict[Any, object]) -> None:
    assert sanitize_json(payload) == _plain_json(payload)


def _nested(depth: int) -> dict[str, object]:
    value: object = "leaf"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return {"root": value}


@pytest.mark.parametrize("depth", [MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 5, 200])
def test_the_json_shortcut_keeps_the_depth_limit(depth: int) -> None:
    payload = _nested(depth)
    try:
        expected: object = _plain_json(payload)
    except TooDeep:
        with pytest.raises(TooDeep):
            sanitize_json(payload)
        return
    assert sanitize_json(payload) == expected


def test_a_clean_payload_is_serialized_once_as_is() -> None:
    payload = {"message": {"content": [{"type": "text", "text": "input_tokens and tokenizers"}]}}
    assert sanitize_json(payload) == (orjson.dumps(payload), 0)


@pytest.mark.parametrize("payload", [
    {"a": "x\x00y"}, {"a": "\ud800"}, {1: "x"}, {"a": 2**80}, {"password": "p"},
    {"token": "abc"}, {"n": [{"access_token": "abc"}]}, {"Authorization": "x y"},
    {"a": "export DB_PASSWORD=hunter2hunter2"}, {"a": float("nan")},
])
def test_payloads_the_shortcut_must_not_take_are_sanitized_the_plain_way(
    payload: dict[Any, object],
) -> None:
    assert sanitize_json(payload) == _plain_json(payload)


def test_words_that_do_not_count_leave_the_shortcut_open() -> None:
    payload = {"usage": {"input_tokens": 3}, "content": "refresh_token() then x", "n": [1]}
    assert sanitize_json(payload) == (orjson.dumps(payload), 0)
    assert sanitize_json({"a": {"b": ["ok", "SECRET_KEY=abcdefgh1234"]}}) == (
        b'{"a":{"b":["ok","SECRET_KEY=[REDACTED:secret-assignment]"]}}', 1)


@given(TEXTS)
@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_quick_any_word_scan_agrees_with_the_full_one(text: str) -> None:
    assert json_has_trigger(text.encode()) == bool(hits(fold(text)))


def test_a_long_text_seen_again_gets_the_same_answer() -> None:
    secret = "x" * 100 + " refresh_token() then API_TOKEN=abcd1234efgh5678 " + "y" * 100
    clean = "z" * 100 + " refresh_token() " + "w" * 100
    answers = [redact(text) for text in (secret, clean, secret, clean)]
    assert answers[0] == answers[2] == _plain_redact(secret)
    assert answers[1] == answers[3] == (clean, 0)
    assert answers[0][1] == 1


VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=20,
)


@given(VALUES)
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
def test_sanitize_value_is_sanitize(value: object) -> None:
    fast, count = redaction.sanitize_value(value)
    plain, plain_count = sanitize(value)
    assert (fast, count) == (plain, plain_count)  # (no NaN is left in either to spoil ==)
    assert type(fast) is type(plain)
