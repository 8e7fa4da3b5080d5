"""Secrets out, text PostgreSQL accepts: what every string goes through before storage.

`redact(text)` replaces each secret by `[REDACTED:<kind>]` and counts them; `sanitize(value)`
does that to every string of a JSON value (dict keys included), drops NUL characters, replaces
lone surrogates and non-finite floats. Both are idempotent: a second pass changes nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MARKER_PREFIX = "[REDACTED:"
_MAX_PASSES = 4


def marker(kind: str) -> str:
    return f"{MARKER_PREFIX}{kind}]"


def _has_letter_and_digit(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _not_a_reference(value: str) -> bool:
    """`$VAR`, `${VAR}`, `%(name)s`, `{{ var }}` and `<placeholder>` name a secret, not hold it."""
    return not value.startswith(("$", "%(", "{{", "<"))


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    # A cheap regex every match contains: the pattern only runs where it is found.
    hint: str
    # Only groups named s1, s2, ... are replaced; without them, the whole match is.
    plausible: Callable[[str], bool] = lambda value: True


def _rule(
    kind: str, regex: str, hint: str, plausible: Callable[[str], bool] | None = None
) -> Rule:
    return Rule(kind, re.compile(regex), hint, plausible or (lambda value: True))


_KEY_START = r"(?<![A-Za-z0-9_-])"
_SECRET_NAME = (
    r"(?:secret|passw(?:or)?d|token(?!s|iz)|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|credentials?)"
)

RULES: tuple[Rule, ...] = (
    _rule(
        "private-key",
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        "PRIVATE KEY",
    ),
    _rule(
        "jwt", _KEY_START + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", "eyJ"
    ),
    _rule("anthropic-key", _KEY_START + r"sk-ant-[A-Za-z0-9_-]{20,}", "sk-ant-"),
    _rule(
        "openai-key",
        _KEY_START + r"sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}",
        "sk-",
    ),
    _rule(
        "github-pat",
        r"(?<![A-Za-z0-9_])(?:ghp_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        "ghp_|github_pat_",
    ),
    _rule("github-token", r"(?<![A-Za-z0-9_])gh[osur]_[A-Za-z0-9]{36,}", "gh[osur]_"),
    _rule("aws-access-key", r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])", "AKIA|ASIA"),
    _rule("slack-token", r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,}", "xox"),
    _rule(
        "slack-webhook", r"hooks\.slack\.com/services/(?P<s1>[A-Za-z0-9_/-]{10,})", "hooks\\.slack"
    ),
    _rule("google-api-key", _KEY_START + r"AIza[0-9A-Za-z_-]{35,}", "AIza"),
    _rule(
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@\[\]]*:(?P<s1>[^\s/@\[\]]+)@",
        "://",
    ),
    _rule(
        "authorization-header",
        r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?:bearer|basic|token|digest|apikey)\s+(?P<s1>[^\s\"',;]{4,})"
        r"|(?P<s2>[A-Za-z0-9._~+/=-]{16,}))",
        "(?i)authorization",
        lambda value: value.startswith(MARKER_PREFIX) or not value.isalpha(),
    ),
    _rule(
        "bearer-token",
        r"(?i)\bbearer\s+(?P<s1>[A-Za-z0-9._~+/-]{16,}=*)",
        "(?i)bearer",
        _has_letter_and_digit,
    ),
    _rule(
        "secret-assignment",
        r"(?<![A-Za-z0-9_])(?:export\s+)?[A-Z0-9_]*"
        r"(?:SECRET|PASSWORD|PASSWD|TOKEN(?!S|IZ)|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)"
        r"[A-Z0-9_]*\s*=\s*"
        r"(?:\"(?P<s1>[^\"\n]+)\"|'(?P<s2>[^'\n]+)'|(?P<s3>[^\s\"'#;&|]+))",
        "SECRET|PASSW|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL",
        _not_a_reference,
    ),
    _rule(
        "secret-assignment",
        r"(?i)(?<![A-Za-z0-9_])[\"']?[a-z0-9_.-]*" + _SECRET_NAME + r"[a-z0-9_.-]*[\"']?\s*[:=]\s*"
        r"(?:\"(?P<s1>[^\"\n]{4,})\"|'(?P<s2>[^'\n]{4,})'"
        r"|(?P<s3>[A-Za-z0-9+/=_!@#%^*~-]{8,})(?![\w\[]|\.\w))",
        "(?i)" + _SECRET_NAME,
        lambda value: _not_a_reference(value)
        and (value.startswith(MARKER_PREFIX) or not value.isidentifier() or "_" not in value),
    ),
)

_HINTS = tuple(re.compile(rule.hint) for rule in RULES)
# One cheap scan of the lowercased text decides whether a string needs the rules at all (most
# do not): every rule's hint, lowercased, is found by it.
_TRIGGER = re.compile(
    r"private key|eyj|sk-|gh[posur]_|github_pat_|akia|asia|xox|hooks\.slack|aiza|://"
    r"|authorization|bearer|secret|passw|token(?!s|iz)|api[_-]?key|access[_-]?key"
    r"|private[_-]?key|credential"
)
_CLEAN_CACHE: dict[str, None] = {}  # short strings known to hold no secret (keys, enums)
_CLEAN_CACHE_MAX = 50_000

SECRET_FIELD_NAMES = frozenset(
    {
        "password", "passwd", "secret", "client_secret", "api_key", "apikey", "x-api-key",
        "access_token", "refresh_token", "auth_token", "id_token", "token", "private_key",
        "secret_key", "secret_access_key", "aws_secret_access_key", "authorization",
    }
)


def _replacer(rule: Rule, counter: list[int]) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        groups = [name for name, value in match.groupdict().items() if value is not None]
        if not groups:
            counter[0] += 1
            return marker(rule.kind)
        name = groups[0]
        value = match.group(name)
        if value.startswith(MARKER_PREFIX) or not rule.plausible(value):
            return whole
        counter[0] += 1
        start, end = match.start(name) - match.start(), match.end(name) - match.start()
        return whole[:start] + marker(rule.kind) + whole[end:]

    return replace


def redact(text: str) -> tuple[str, int]:
    """Replace every secret in `text`; return the new text and how many were replaced."""
    if text in _CLEAN_CACHE:
        return text, 0
    if not _TRIGGER.search(text.lower()):
        if len(text) <= 64:
            if len(_CLEAN_CACHE) >= _CLEAN_CACHE_MAX:
                _CLEAN_CACHE.clear()
            _CLEAN_CACHE[text] = None
        return text, 0
    counter = [0]
    for _ in range(_MAX_PASSES):
        before = text
        for rule, hint in zip(RULES, _HINTS, strict=True):
            if hint.search(text):
                text = rule.pattern.sub(_replacer(rule, counter), text)
        if text == before:
            break
    return text, counter[0]


def clean_text(text: str) -> str:
    """Drop NUL characters and replace lone surrogates: PostgreSQL refuses both."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Pairs written as two code points are joined; lone halves become U+FFFD.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def sanitize_text(text: str) -> tuple[str, int]:
    return redact(clean_text(text))


def _is_secret_field(key: str, value: Any) -> bool:
    return (
        isinstance(value, str)
        and bool(value)
        and not value.startswith(MARKER_PREFIX)
        and key.lower() in SECRET_FIELD_NAMES
    )


MAX_DEPTH = 100


class TooDeep(ValueError):
    """A JSON value nested deeper than MAX_DEPTH."""


def sanitize(value: Any, *, _depth: int = 0) -> tuple[Any, int]:
    """Sanitize a JSON value: every string, dict keys included. Returns (value, redactions).
    Raises TooDeep beyond MAX_DEPTH levels of nesting."""
    if isinstance(value, str):
        return sanitize_text(value)
    if isinstance(value, dict | list | tuple) and _depth >= MAX_DEPTH:
        raise TooDeep(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        return _sanitize_dict(value, _depth + 1)
    if isinstance(value, list | tuple):
        out, total = [], 0
        for item in value:
            clean, count = sanitize(item, _depth=_depth + 1)
            out.append(clean)
            total += count
        return out, total
    if isinstance(value, float) and not math.isfinite(value):
        return None, 0
    return value, 0


def _sanitize_dict(value: dict[Any, Any], depth: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    total = 0
    for raw_key, item in value.items():
        key, count = sanitize_text(raw_key if isinstance(raw_key, str) else str(raw_key))
        total += count
        if _is_secret_field(key, item):
            out[key] = marker("secret-field")
            total += 1
            continue
        out[key], count = sanitize(item, _depth=depth)
        total += count
    return out, total
