from __future__ import annotations

from typing import Any

from insight.analyzers.project_activity import analyze
from tests.insight.analyzers.factories import CWD, prompt, tool_result, tool_use

PYTHON = """import os
import httpx
from django.db import models
from cortex import settings
from . import sibling
"""


def _touched(events: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(d.payload["kind"], d.payload["name"], d.payload["action"]) for d in analyze(events)]


def test_files_written_and_the_libraries_their_code_imports() -> None:
    events = [tool_use("Write", {"file_path": f"{CWD}/memory/api.py", "content": PYTHON},
                       use_id="t1")]
    assert _touched(events) == [
        ("project", "cortex", "worked_on"),
        ("file", "cortex/memory/api.py", "written"),
        ("library", "django", "imported"),
        ("library", "httpx", "imported"),
    ]
    libraries = [d for d in analyze(events) if d.payload["kind"] == "library"]
    assert libraries[0].target_namespace == "world:artifact"
    assert libraries[0].actors[1]["key"] == "world:artifact:django"


def test_edits_and_javascript_imports() -> None:
    code = 'import React from "react";\nimport { x } from "./x";\nimport "@tanstack/query/x";'
    events = [tool_use("MultiEdit", {"file_path": "/elsewhere/app.tsx",
                                     "edits": [{"old_string": "a", "new_string": code}]},
                       use_id="t1")]
    assert _touched(events)[1:] == [
        ("file", "/elsewhere/app.tsx", "edited"),
        ("library", "@tanstack/query", "imported"),
        ("library", "react", "imported"),
    ]


def test_package_installs_whatever_the_manager() -> None:
    events = [
        tool_use("Bash", {"command": "uv add httpx 'rich>=13'"}, use_id="t1"),
        tool_use("Bash", {"command": "cd web && npm install --save-dev @types/node"},
                 use_id="t2"),
        tool_use("Bash", {"command": "pip install -r requirements.txt"}, use_id="t3"),
    ]
    assert [t for t in _touched(events) if t[0] == "library"] == [
        ("library", "httpx", "installed"), ("library", "rich", "installed"),
        ("library", "@types/node", "installed"),
    ]


def test_each_thing_is_recorded_once_per_session() -> None:
    edit = {"file_path": f"{CWD}/a.py", "old_string": "x", "new_string": "y"}
    events = [
        prompt("Corrige le bug dans a.py", session="s1"),
        tool_use("Edit", edit, use_id="t1", session="s1"),
        tool_result("ok", use_id="t1", session="s1"),
        tool_use("Edit", edit, use_id="t2", session="s1"),
        tool_use("Edit", edit, use_id="t3", session="s2"),
    ]
    assert [(d.correlation["session"], d.payload["kind"]) for d in analyze(events)] == [
        ("s1", "project"), ("s1", "file"), ("s2", "project"), ("s2", "file"),
    ]


def test_a_french_project_name_is_kept_and_keyed() -> None:
    (found,) = analyze([prompt("Ajoute un test", project="démo-numéro-2")])
    assert found.payload["project"] == "démo-numéro-2"
    assert found.actors[0]["key"] == "world:project:demo-numero-2"


def test_events_without_a_project_say_nothing() -> None:
    assert analyze([prompt("hello", project="")]) == []
