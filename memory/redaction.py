"""Secrets out, text PostgreSQL accepts: what every string goes through before storage.

`redact(text)` replaces each secret by `[REDACTED:<kind>]` and counts them; `sanitize(value)`
does that to every string of a JSON value (dict keys included), drops NUL characters, replaces
lone surrogates and non-finite floats. Both are idempotent: a second pass changes nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from memory import redaction_scan
from memory.event_payload import json_dump

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
    # The literals one of which every match contains at the index of a trigger word
    # (redaction_scan.WORDS), as written in the text; any case when `caseless`.
    words: tuple[str, ...] = ()
    caseless: bool = False


def _rule(
    kind: str,
    regex: str,
    hint: str,
    plausible: Callable[[str], bool] | None = None,
    *,
    words: tuple[str, ...],
) -> Rule:
    return Rule(kind, re.compile(regex), hint, plausible or (lambda value: True), words,
                caseless=regex.startswith("(?i)"))


_KEY_START = r"(?<![A-Za-z0-9_-])"
_SECRET_WORDS = (
    "secret", "passw", "token", "api_key", "api-key", "apikey", "access_key", "access-key",
    "accesskey", "private_key", "private-key", "privatekey", "credential",
)
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
        words=("PRIVATE KEY",),
    ),
    _rule(
        "jwt", _KEY_START + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", "eyJ",
        words=("eyJ",),
    ),
    _rule("anthropic-key", _KEY_START + r"sk-ant-[A-Za-z0-9_-]{20,}", "sk-ant-", words=("sk-",)),
    _rule(
        "openai-key",
        _KEY_START + r"sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}",
        "sk-",
        words=("sk-",),
    ),
    _rule(
        "github-pat",
        r"(?<![A-Za-z0-9_])(?:ghp_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        "ghp_|github_pat_",
        words=("ghp_", "github_pat_"),
    ),
    _rule("github-token", r"(?<![A-Za-z0-9_])gh[osur]_[A-Za-z0-9]{36,}", "gh[osur]_",
          words=("gho_", "ghs_", "ghu_", "ghr_")),
    _rule("aws-access-key", r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])", "AKIA|ASIA",
          words=("AKIA", "ASIA")),
    _rule("slack-token", r"(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,}", "xox",
          words=("xox",)),
    _rule(
        "slack-webhook", r"hooks\.slack\.com/services/(?P<s1>[A-Za-z0-9_/-]{10,})", "hooks\\.slack",
        words=("hooks.slack",),
    ),
    _rule("google-api-key", _KEY_START + r"AIza[0-9A-Za-z_-]{35,}", "AIza", words=("AIza",)),
    _rule(
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@\[\]]*:(?P<s1>[^\s/@\[\]]+)@",
        "://",
        words=("://",),
    ),
    _rule(
        "authorization-header",
        r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?:bearer|basic|token|digest|apikey)\s+(?P<s1>[^\s\"',;]{4,})"
        r"|(?P<s2>[A-Za-z0-9._~+/=-]{16,}))",
        "(?i)authorization",
        lambda value: value.startswith(MARKER_PREFIX) or not value.isalpha(),
        words=("authorization",),
    ),
    _rule(
        "bearer-token",
        r"(?i)\bbearer\s+(?P<s1>[A-Za-z0-9._~+/-]{16,}=*)",
        "(?i)bearer",
        _has_letter_and_digit,
        words=("bearer",),
    ),
    _rule(
        "secret-assignment",
        r"(?<![A-Za-z0-9_])(?:export\s+)?[A-Z0-9_]*"
        r"(?:SECRET|PASSWORD|PASSWD|TOKEN(?!S|IZ)|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)"
        r"[A-Z0-9_]*\s*=\s*"
        r"(?:\"(?P<s1>[^\"\n]+)\"|'(?P<s2>[^'\n]+)'|(?P<s3>[^\s\"'#;&|]+))",
        "SECRET|PASSW|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL",
        _not_a_reference,
        words=("SECRET", "PASSW", "TOKEN", "API_KEY", "APIKEY", "ACCESS_KEY", "ACCESSKEY",
               "PRIVATE_KEY", "PRIVATEKEY", "CREDENTIAL"),
    ),
    _rule(
        "secret-assignment",
        r"(?i)(?<![A-Za-z0-9_])[\"']?[a-z0-9_.-]*" + _SECRET_NAME + r"[a-z0-9_.-]*[\"']?\s*[:=]\s*"
        r"(?:\"(?P<s1>[^\"\n]{4,})\"|'(?P<s2>[^'\n]{4,})'"
        r"|(?P<s3>[A-Za-z0-9+/=_!@#%^*~-]{8,})(?![\w\[]|\.\w))",
        "(?i)" + _SECRET_NAME,
        lambda value: _not_a_reference(value)
        and (value.startswith(MARKER_PREFIX) or not value.isidentifier() or "_" not in value),
        words=_SECRET_WORDS,
    ),
)
# The rule whose matches start before their trigger word, in a run of name characters: it is
# tried only where such a run can start (see _sub_before_names), not at every index.
_NAMED_ASSIGNMENT = RULES[-1]

_HINTS = tuple(re.compile(rule.hint) for rule in RULES)
# Each rule's literals as the scan reports them: a rule none of whose words was found is not
# gated in (_gated is not even asked).
_FOLDED_WORDS = tuple(frozenset(word.lower() for word in rule.words) for rule in RULES)
_CLEAN_CACHE: dict[str, None] = {}  # short strings known to hold no secret (keys, enums)
_CLEAN_CACHE_MAX = 50_000
_RECENT_LONG: dict[str, tuple[str, int]] = {}
_RECENT_LONG_MAX = 16

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
    if len(text) <= 64:
        return _redact_short(text)
    # A long text often comes twice in a row (a tool's output is in a record's message and
    # in its toolUseResult): the last few answers are kept.
    answer = _RECENT_LONG.get(text)
    if answer is None:
        if len(_RECENT_LONG) >= _RECENT_LONG_MAX:
            _RECENT_LONG.clear()
        answer = _RECENT_LONG[text] = _redact(text)
    return answer


def _redact_short(text: str) -> tuple[str, int]:
    answer = _redact(text)
    if answer[1] == 0:
        if len(_CLEAN_CACHE) >= _CLEAN_CACHE_MAX:
            _CLEAN_CACHE.clear()
        _CLEAN_CACHE[text] = None
    return answer


def _redact(text: str) -> tuple[str, int]:
    folded = redaction_scan.fold(text)
    found = redaction_scan.hits(folded)
    if not found:
        return text, 0
    counter = [0]
    before = text
    text = _first_pass(text, folded, found, counter)
    for _ in range(_MAX_PASSES - 1):
        if text == before:
            break
        before = text
        text = _full_pass(text, counter)
    return text, counter[0]


def _full_pass(text: str, counter: list[int]) -> str:
    for rule, hint in zip(RULES, _HINTS, strict=True):
        if hint.search(text):
            text = rule.pattern.sub(_replacer(rule, counter), text)
    return text


def _gated(rule: Rule, text: str, where: dict[str, list[int]]) -> bool:
    """Whether one of the rule's literals is in the text where a trigger word was found."""
    for literal in rule.words:
        indexes = where.get(literal.lower())
        if indexes and (rule.caseless or any(text.startswith(literal, i) for i in indexes)):
            return True
    return False


def _first_pass(
    text: str, folded: str, found: list[redaction_scan.Hit], counter: list[int]
) -> str:
    """One pass of every rule, as _full_pass does, but each rule runs only if one of its
    literals was found; once a rule has changed the text (markers hold trigger words of their
    own), the rest of the pass is _full_pass's."""
    where: dict[str, list[int]] = {}
    for word, index in found:
        where.setdefault(word, []).append(index)
    changed = False
    for rule, hint, words in zip(RULES, _HINTS, _FOLDED_WORDS, strict=True):
        if changed:
            if hint.search(text):
                text = rule.pattern.sub(_replacer(rule, counter), text)
            continue
        if words.isdisjoint(where) or not _gated(rule, text, where):
            continue
        if rule is _NAMED_ASSIGNMENT:
            new = _sub_before_names(rule, text, folded, where, counter)
        elif hint.search(text):
            new = rule.pattern.sub(_replacer(rule, counter), text)
        else:
            continue
        changed, text = new != text, new
    return text


def _sub_before_names(
    rule: Rule, text: str, folded: str, where: dict[str, list[int]], counter: list[int]
) -> str:
    """rule.pattern.sub(...) that tries only the indexes where a match can start (the run of
    name characters before each secret name): the same matches, without trying every index
    of a long text. pattern.match(text, i) sees the text before i, as search does."""
    names = [index for word in _SECRET_WORDS for index in where.get(word, ())]
    starts = redaction_scan.assignment_starts(folded, names)
    replace = _replacer(rule, counter)
    pieces: list[str] = []
    done = 0
    for start in starts:
        if start < done:
            continue
        match = rule.pattern.match(text, start)
        if match is None:
            continue
        pieces += [text[done:start], replace(match)]
        done = match.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


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


def sanitize_texts(texts: Sequence[str]) -> tuple[list[str], int]:
    """sanitize_text of each text, and the redactions in all. One scan decides for them all
    when none needs a change (the usual case): joined by a separator no trigger word holds,
    they hold a trigger word only if one of them does."""
    joined = "\x1f".join(texts)
    if joined.isascii() and "\x00" not in joined and not redaction_scan.hits(joined.lower()):
        return list(texts), 0
    total, out = 0, []
    for text in texts:
        clean, count = sanitize_text(text)
        out.append(clean)
        total += count
    return out, total


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
            kind = type(item)  # what sanitize hands back as it is, known without a call
            if kind in _AS_IS or (kind is str and item in _CLEAN_CACHE):
                out.append(item)
                continue
            clean, count = sanitize(item, _depth=_depth + 1)
            out.append(clean)
            total += count
        return out, total
    if isinstance(value, float) and not math.isfinite(value):
        return None, 0
    return value, 0


# Values sanitize returns as they are, whatever their depth. A string in _CLEAN_CACHE is
# one too: the cache holds only texts clean_text left alone and redact found nothing in.
_AS_IS = frozenset({int, bool, type(None)})


def _sanitize_dict(value: dict[Any, Any], depth: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    total = 0
    for raw_key, item in value.items():
        if type(raw_key) is str and raw_key in _CLEAN_CACHE:
            key = raw_key
        else:
            key, count = sanitize_text(raw_key if isinstance(raw_key, str) else str(raw_key))
            total += count
        kind = type(item)
        if kind in _AS_IS:
            out[key] = item
            continue
        if _is_secret_field(key, item):
            out[key] = marker("secret-field")
            total += 1
            continue
        if kind is str and item in _CLEAN_CACHE:
            out[key] = item
            continue
        out[key], count = sanitize(item, _depth=depth)
        total += count
    return out, total


def _depth_within(value: Any, limit: int) -> bool:
    """No container nested `limit` levels below `value` (sanitize's TooDeep rule)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth >= limit:
            return False
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list | tuple))
    return True


def _json_and_clean(value: Any) -> tuple[bytes | None, bool, bool]:
    """The value's JSON (None when orjson cannot write it), whether sanitizing could change
    nothing in it, and whether that JSON holds an escaped NUL.

    Every string and key appears in the JSON text as itself (escaping only touches quotes,
    backslashes and control characters, which no trigger word contains), so a text with no
    trigger word, no escaped NUL and no lone surrogate (orjson refuses those) holds no string
    sanitize would touch, and no secret-named key (each such name holds a trigger word).
    (Non-finite floats are written as null, as sanitize would.)
    """
    try:
        data = orjson.dumps(value)
    except TypeError:  # lone surrogates, non-string keys, ints beyond 64 bits, odd types
        return None, False, False
    trigger, nul = redaction_scan.json_scan(data)
    if trigger or nul:
        return data, False, nul
    if data.count(b"{") + data.count(b"[") >= MAX_DEPTH and not _depth_within(value, MAX_DEPTH):
        return data, False, False
    return data, True, False


def _clean_json(value: Any) -> bytes | None:
    """The value's JSON if sanitizing could change nothing in it, else None."""
    data, clean, _nul = _json_and_clean(value)
    return data if clean else None


def sanitize_value(value: Any) -> tuple[Any, int]:
    """sanitize(value), answering the value itself when its JSON shows nothing to change and
    reads back equal (no tuple, non-finite float or other type sanitize would convert)."""
    data = _clean_json(value)
    if data is not None and orjson.loads(data) == value:
        return value, 0
    return sanitize(value)


def sanitize_json(payload: Mapping[str, Any]) -> tuple[bytes, int]:
    """sanitize(payload) serialized as JSON, and its redaction count. Raises TooDeep."""
    data, count, _by_orjson = sanitized_json(payload)
    return data, count


def sanitized_json(payload: Mapping[str, Any]) -> tuple[bytes, int, bool]:
    """sanitize_json, and whether orjson wrote the JSON (it holds no integer beyond 64 bits).

    Most payloads hold nothing to change: one scan of their JSON text proves it, and that
    text is the answer (each payload is serialized once, strings are not walked one by one).
    """
    data, clean, nul = _json_and_clean(payload)
    if clean and data is not None:
        return data, 0, True
    value, count = sanitize(dict(payload))
    if count == 0 and data is not None and not nul:
        # A trigger word and nothing replaced (code that names a token): orjson wrote the
        # payload, so it held no lone surrogate, and no NUL, the only other changes sanitize
        # makes (non-finite floats and tuples it writes as sanitize would): that JSON is it.
        return data, 0, True
    text, by_orjson = json_dump(value)
    return text, count, by_orjson
