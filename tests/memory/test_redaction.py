"""The redaction module: every kind of secret out, look-alikes left alone, idempotent."""

from __future__ import annotations

import hashlib
import json
import random
import string
import uuid

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ulid import ULID

from memory.redaction import clean_text, redact, sanitize

ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"


def _chars(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size)


def _with_digit(body: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(body, st.sampled_from(string.digits)).map(lambda t: t[0][:-1] + t[1])


# Each strategy yields (kind, text to embed, the part that must not survive).
def _token(kind: str, prefix: str, alphabet: str, size: int) -> st.SearchStrategy:
    return _with_digit(_chars(alphabet, size)).map(lambda body: (kind, prefix + body, body))


SECRETS = st.one_of(
    _token("anthropic-key", "sk-ant-api03-", B64URL, 93),
    _token("openai-key", "sk-", ALNUM, 48),
    _token("openai-key", "sk-proj-", B64URL, 120),
    _token("github-pat", "ghp_", ALNUM, 36),
    _token("github-pat", "github_pat_", ALNUM + "_", 82),
    _token("github-token", "gho_", ALNUM, 36),
    _token("aws-access-key", "AKIA", string.ascii_uppercase + string.digits, 16),
    _token("aws-access-key", "ASIA", string.ascii_uppercase + string.digits, 16),
    _token("slack-token", "xoxb-", ALNUM + "-", 40),
    _token("google-api-key", "AIza", B64URL, 35),
    st.tuples(_chars(B64URL, 20), _chars(B64URL, 40), _chars(B64URL, 43)).map(
        lambda p: ("jwt", f"eyJ{p[0]}.eyJ{p[1]}.{p[2]}", f"{p[1]}.{p[2]}")
    ),
    _with_digit(_chars(ALNUM + "+/", 64)).map(
        lambda body: (
            "private-key",
            f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n{body[::-1]}\n-----END RSA PRIVATE KEY-----",
            body,
        )
    ),
    _with_digit(_chars(ALNUM + "!%*", 16)).map(
        lambda pw: ("url-password", f"postgres://cortex:{pw}@db.example.org:5432/x", pw)
    ),
    _with_digit(_chars(ALNUM + "._-", 32)).map(
        lambda tok: ("authorization-header", f"Authorization: Bearer {tok}", tok)
    ),
    _with_digit(_chars(ALNUM, 24)).map(
        lambda tok: ("authorization-header", f'"authorization": "Basic {tok}"', tok)
    ),
    st.tuples(st.sampled_from(["SECRET", "DB_PASSWORD", "API_TOKEN", "STRIPE_API_KEY"]),
              _with_digit(_chars(ALNUM + "!@%^*", 20))).map(
        lambda t: ("secret-assignment", f"{t[0]}={t[1]}", t[1])
    ),
    _with_digit(_chars(ALNUM, 20)).map(
        lambda v: ("secret-assignment", f'export AWS_SECRET_ACCESS_KEY="{v}"', v)
    ),
    _with_digit(_chars(ALNUM, 20)).map(lambda v: ("secret-assignment", f"password: {v}", v)),
)

SEPARATORS = st.sampled_from([" ", "\n", "\t", '"', "'", ", ", "; ", "(", ")", "<", ">", " | "])
FILLER = st.text(max_size=60)


@st.composite
def text_with_secret(draw: st.DrawFn) -> tuple[str, str, str]:
    kind, secret, core = draw(SECRETS)
    before, after = draw(FILLER), draw(FILLER)
    assume(core not in before and core not in after)
    return kind, before + draw(SEPARATORS) + secret + draw(SEPARATORS) + after, core


JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20))


@st.composite
def payload_with_secret(draw: st.DrawFn) -> tuple[object, str]:
    _, text, core = draw(text_with_secret())
    base = draw(
        st.recursive(
            st.dictionaries(st.text(max_size=8), JSON_SCALARS, max_size=4),
            lambda inner: st.one_of(
                st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
            ),
            max_leaves=10,
        )
    )
    place = draw(st.sampled_from(["value", "key", "nested_list"]))
    if place == "value":
        payload = {"x": base, draw(st.text(max_size=8)): text}
    elif place == "key":
        payload = {"x": base, text: 1}
    else:
        payload = {"x": base, "items": [1, {"y": [text]}]}
    return payload, core


@given(text_with_secret())
@settings(max_examples=400, deadline=None)
def test_a_secret_at_a_random_offset_never_survives(case: tuple[str, str, str]) -> None:
    kind, text, core = case
    redacted, count = redact(clean_text(text))
    assert core not in redacted
    assert count >= 1
    assert "[REDACTED:" in redacted


@given(payload_with_secret())
@settings(max_examples=300, deadline=None)
def test_no_secret_survives_anywhere_in_a_payload(case: tuple[object, str]) -> None:
    payload, core = case
    clean, count = sanitize(payload)
    assert core not in json.dumps(clean, ensure_ascii=False)
    assert count >= 1


@given(payload_with_secret())
@settings(max_examples=200, deadline=None)
def test_sanitizing_twice_changes_nothing(case: tuple[object, str]) -> None:
    once, _ = sanitize(case[0])
    twice, count = sanitize(once)
    assert twice == once
    assert count == 0


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_redaction_of_any_text_is_idempotent(text: str) -> None:
    once, _ = redact(clean_text(text))
    assert redact(once) == (once, 0)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("key sk-ant-api03-" + "Ab1_" * 20 + " end", "anthropic-key"),
        ("OPENAI sk-" + "aB3" * 16, "openai-key"),
        ("sk-proj-" + "Zz9-" * 30, "openai-key"),
        ("ghp_" + "a1B2" * 9, "github-pat"),
        ("github_pat_11ABCDEFG0" + "x_Y1" * 15, "github-pat"),
        ("ghs_" + "Q7w" * 12, "github-token"),
        ("aws AKIAIOSFODNN7EXAMPLE x", "aws-access-key"),
        ("ASIAY34FZKBOKMUTVV7A", "aws-access-key"),
        ("xoxb-2048-4096-" + "AbC1" * 6, "slack-token"),
        ("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXX", "slack-webhook"),
        ("AIzaSyD-" + "a1B2c3D4e5" * 3 + "xyzab", "google-api-key"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt",
        ),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n"
            "-----END OPENSSH PRIVATE KEY-----",
            "private-key",
        ),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC (cut)", "private-key"),
        ("redis://:s3cretpass@localhost:6379/0", "url-password"),
        ("curl -H 'Authorization: token abcdef0123456789'", "authorization-header"),
        ("Proxy-Authorization: Basic dXNlcjpwYXNzd29yZA==", "authorization-header"),
        ("SECRET_KEY=django-insecure-abc123", "secret-assignment"),
        ("DB_PASSWORD='hunter2'", "secret-assignment"),
        ('{"client_secret": "abcd1234efgh"}', "secret-assignment"),
        ("Bearer abcdefghijklmnop1234", "bearer-token"),
    ],
)
def test_each_kind_is_redacted_with_its_name(text: str, kind: str) -> None:
    redacted, count = redact(text)
    assert f"[REDACTED:{kind}]" in redacted
    assert count >= 1


def test_url_keeps_its_user_and_host() -> None:
    assert redact("postgres://app:pw123456@db:5432/cortex")[0] == (
        "postgres://app:[REDACTED:url-password]@db:5432/cortex"
    )


def test_secret_named_dict_fields_are_redacted_by_name() -> None:
    clean, count = sanitize({"password": "hunter2", "auth": {"token": "x"}, "tokens": 3})
    assert clean == {
        "password": "[REDACTED:secret-field]",
        "auth": {"token": "[REDACTED:secret-field]"},
        "tokens": 3,
    }
    assert count == 2


def _lookalikes() -> list[str]:
    sha1 = hashlib.sha1(b"x").hexdigest()
    sha256 = hashlib.sha256(b"x").hexdigest()
    # Seeded: every process collects the same parameters (pytest-xdist compares them);
    # test_ids_and_digests_in_prose_are_never_touched below draws fresh ones.
    rng = random.Random(7)
    ulids = [ULID.from_bytes(rng.randbytes(16)) for _ in range(2)]
    uuids = [uuid.UUID(int=rng.getrandbits(128), version=4) for _ in range(2)]
    return [
        f"commit {sha1}",
        f"merged {sha1[:7]} into main",
        f"sha256:{sha256}",
        f"id {ulids[0]} and {ulids[1]}",
        f"uuid {uuids[0]} {uuids[1].hex}",
        "parentUuid: 3f2c1a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60",
        "the task-management-system-design doc",
        "pip install scikit-learn; sk-learn is not a key",
        "password reset flow; the token expired; Authorization: required",
        "max_tokens=4096 input_tokens: 12345678",
        "TOKENIZERS_PARALLELISM=false",
        "password = get_password()",
        "token = self.tokens[0]",
        "export PASSWORD=$DB_PASSWORD",
        "https://github.com/org/repo/commit/" + sha1,
        "PWD=/home/operator/project",
        "git@github.com:org/repo.git",
        "msg_01XFDUDYJgAACzvnptvVoYEL req_011CQeNDvJx4Hk4Tb2g8KxJ8",
        "toolu_01A09q90qw90lq917835lq9",
    ]


@pytest.mark.parametrize("text", _lookalikes())
def test_lookalikes_are_left_alone(text: str) -> None:
    assert redact(text) == (text, 0)


@given(
    st.lists(
        st.one_of(
            st.builds(lambda: str(ULID())),
            st.builds(lambda: str(uuid.uuid4())),
            st.binary(min_size=1, max_size=32).map(lambda b: hashlib.sha256(b).hexdigest()),
            st.binary(min_size=1, max_size=32).map(lambda b: hashlib.sha1(b).hexdigest()),
            st.text(alphabet=string.ascii_letters + " .,", max_size=30),
        ),
        max_size=8,
    ),
    SEPARATORS,
)
@settings(max_examples=300, deadline=None)
def test_ids_and_digests_in_prose_are_never_touched(parts: list[str], sep: str) -> None:
    text = sep.join(parts)
    assert redact(text) == (text, 0)


def test_nul_and_lone_surrogates_are_cleaned() -> None:
    assert clean_text("a\x00b") == "ab"
    assert clean_text("x\ud800y") == "x\ufffdy"
    assert clean_text("\ud83d\ude00") == "\U0001f600"  # a pair written as two code points
    assert clean_text("déjà vu") == "déjà vu"


@given(st.text(alphabet=st.characters(codec=None, blacklist_categories=())))
@settings(max_examples=300, deadline=None)
def test_cleaned_text_is_valid_utf8_without_nul(text: str) -> None:
    cleaned = clean_text(text)
    cleaned.encode("utf-8")
    assert "\x00" not in cleaned


def test_sanitize_cleans_keys_and_drops_non_finite_numbers() -> None:
    clean, _ = sanitize({"k\x00": ["v\ud800", float("nan"), 1.5, {"n": float("inf")}]})
    assert clean == {"k": ["v\ufffd", None, 1.5, {"n": None}]}
