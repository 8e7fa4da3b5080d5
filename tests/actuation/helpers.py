"""Shared steps: a proposal detected from a recurring tool error, an operator account."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from actuation.models import Proposal
from actuation.services.detection import detection_run
from memory.config import config_get
from tests.actuation import graphs

NOW = graphs.T0 + timedelta(days=1)


def operator(username: str = "alice", *, staff: bool = True) -> AbstractBaseUser:
    User = get_user_model()
    return User.objects.create_user(username=username, password="pw-" + username,
                                    is_staff=staff, is_superuser=staff)


def detected(**kw: object) -> Proposal:
    """The pitfalls proposal of a recurring, recovered tool error (Edit before Read)."""
    sessions = config_get().actuation.claude_md.min_sessions
    graphs.submit(graphs.tool_errors(sessions=sessions, **kw))  # type: ignore[arg-type]
    report = detection_run(now=NOW)
    return Proposal.objects.get(pk=report.proposals[-1])


def detected_grants(*rules: str) -> Proposal:
    """The allowlist proposal of rules granted in enough sessions (one proposal for them)."""
    sessions = config_get().actuation.allowlist.min_sessions
    for n, rule in enumerate(rules or ("Bash(npm test:*)",)):
        graphs.submit(graphs.grants(sessions=sessions, rule=rule, prefix=f"g{n}-"))
    report = detection_run(now=NOW)
    return Proposal.objects.get(pk=report.proposals[-1])
