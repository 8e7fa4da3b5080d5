"""Observations built by hand for the Retain Job's tests, submitted through the real
contract (memory.services.observations)."""

from __future__ import annotations

import hashlib
import itertools
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from memory.retain.extraction import slug_of
from memory.services.observations import observation_submit_many

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
_counter = itertools.count(1)


def obs(category: str, target: str, *, topic: str = "", actors: tuple[dict[str, str], ...] = (),
        payload: dict[str, Any] | None = None, at: datetime | None = None,
        sentiment: str = "neutral", key: str = "") -> dict[str, Any]:
    n = next(_counter)
    return {"source": "test", "category": category, "target_namespace": target,
            "timestamp": at or T0 + timedelta(minutes=n), "topic": topic,
            "actors": list(actors), "payload_typed": payload or {}, "sentiment": sentiment,
            "dedup_key": key or f"test:{n}"}


def submit(*observations: dict[str, Any]) -> list[str]:
    return [r.id for r in observation_submit_many(observations=list(observations))]


OPERATOR = {"name": "operator", "key": "self:operator", "role": "speaker"}
AGENT = {"name": "claude-code", "key": "agent:claude-code", "role": "addressee"}


def instruction(claim: str, polarity: str = "positive", *, text: str = "", language: str = "en",
                **kw: Any) -> dict[str, Any]:
    return obs("instruction", "agent:claude-code:instruction", topic=text or claim,
               actors=(OPERATOR, AGENT),
               payload={"claim": claim, "subject": claim.split(" ", 1)[-1],
                        "polarity": polarity, "text": text or claim, "language": language},
               **kw)


def fact(subject: str, text: str, *, target: str = "world:artifact", **kw: Any) -> dict[str, Any]:
    return obs("fact", target, topic=text, payload={"subject": subject, "text": text}, **kw)


def commit(author: str, repo: str, message: str, **kw: Any) -> dict[str, Any]:
    slug = slug_of(author)
    return obs("commit", "world:project", topic=message,
               actors=({"name": author, "key": f"world:person:{slug}", "role": "author"},
                       {"name": repo, "key": f"world:project:{repo}", "role": "repository"}),
               payload={"sha": f"{next(_counter):040x}", "repo": repo, "kind": "feat",
                        "author": author, "files": []}, **kw)


def tool_error(tool: str, message: str, **kw: Any) -> dict[str, Any]:
    signature = hashlib.sha256(f"{tool}\n{message}".encode()).hexdigest()[:16]
    return obs("tool_error", "agent:claude-code:rc", topic=f"{tool}: {message}",
               actors=({"name": "claude-code", "key": "agent:claude-code", "role": "agent"},
                       {"name": tool, "role": "tool"}),
               payload={"tool": tool, "signature": signature, "normalized": message}, **kw)


AUTHORS = ["Alice Martin", "Bruno Dupont", "Chloe Bernard", "Dmitri Ivanov", "Emma Wilson"]
REPOS = ["billing-api", "cortex", "infra", "search"]
TOOLS = ["Bash", "Read", "Edit", "Write"]
ERRORS = ["no module named structlog", "file does not exist", "permission denied",
          "connection refused", "tests failed"]
CLAIMS = ["use uv", "use pnpm", "use httpx", "use mocks in tests", "use type hints"]


def synthetic(n: int, *, seed: int = 5) -> list[dict[str, Any]]:
    """`n` varied observations (commits, tool errors, instructions), a fixed graph per seed."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        at = T0 + timedelta(seconds=37 * i)
        kind = rng.random()
        if kind < 0.5:
            out.append(commit(rng.choice(AUTHORS), rng.choice(REPOS),
                              f"feat: work {rng.randint(1, 50)}", at=at, key=f"syn:{seed}:{i}"))
        elif kind < 0.85:
            tool, error = rng.choice(TOOLS), rng.choice(ERRORS)
            out.append(obs("tool_error", "agent:claude-code:rc", topic=f"{tool}: {error}",
                           actors=({"name": "claude-code", "key": "agent:claude-code",
                                    "role": "agent"}, {"name": tool, "role": "tool"}),
                           payload={"tool": tool, "signature": f"{TOOLS.index(tool)}"
                                    f"{ERRORS.index(error):015d}", "normalized": error},
                           at=at, key=f"syn:{seed}:{i}"))
        else:
            claim = rng.choice(CLAIMS)
            out.append(instruction(claim, rng.choice(["positive", "positive", "negative"]),
                                   at=at, key=f"syn:{seed}:{i}"))
    return out
