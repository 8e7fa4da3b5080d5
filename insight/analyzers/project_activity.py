"""Projects, files and libraries touched -> `project_activity`: the project a session
works in, the files it reads, writes and edits, the packages it installs (`pip install`,
`uv add`, `npm install`, ...) and the libraries the code it writes imports. Each is
recorded once per session."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from django.utils.text import slugify

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.commands import imports_in, installs
from insight.analyzers.events import (
    agent_of,
    blocks,
    correlation,
    draft,
    observed,
    payload,
    tool_input,
)

FILE_ACTIONS = {"Write": "written", "Edit": "edited", "MultiEdit": "edited",
                "NotebookEdit": "edited", "Read": "read"}
NAMESPACES = {"project": namespaces.PROJECT, "file": namespaces.ARTIFACT,
              "library": namespaces.ARTIFACT}


def _relative(path: str, cwd: str) -> str:
    prefix = cwd.rstrip("/") + "/"
    return path[len(prefix):] if cwd and path.startswith(prefix) else path


def _written_code(tool: str, data: Mapping[str, Any]) -> str:
    if tool == "Write":
        return str(data.get("content") or "")
    if tool == "Edit":
        return str(data.get("new_string") or "")
    if tool == "MultiEdit" and isinstance(data.get("edits"), list):
        return "\n".join(str(e.get("new_string") or "") for e in data["edits"]
                         if isinstance(e, Mapping))
    return ""


def _touches(event: Event) -> Iterator[tuple[str, str, str, dict[str, str]]]:
    """(kind, name, action, extra) for what one tool call touches."""
    project, cwd = str(event.get("project") or ""), str(payload(event).get("cwd") or "")
    for block in blocks(event, "tool_use"):
        tool, data = str(block.get("name") or ""), tool_input(block)
        if tool in FILE_ACTIONS:
            path = str(data.get("file_path") or data.get("notebook_path") or "")
            if path:
                yield "file", _relative(path, cwd), FILE_ACTIONS[tool], {"tool": tool}
                for library in imports_in(_written_code(tool, data), path, project=project):
                    yield "library", library, "imported", {"file": _relative(path, cwd)}
        elif tool == "Bash":
            for manager, package in installs(str(data.get("command") or "")):
                yield "library", package, "installed", {"manager": manager}


def _actors(kind: str, name: str, project: str) -> tuple[dict[str, str], ...]:
    actors = [{"name": project, "key": f"world:project:{slugify(project)}", "role": "project"}]
    if kind == "library":
        actors.append({"name": name, "key": f"world:artifact:{slugify(name)}", "role": "library"})
    elif kind == "file":
        actors.append({"name": name, "role": "file"})
    return tuple(actors)


def _draft(event: Event, kind: str, name: str, action: str, extra: dict[str, str],
           key: str) -> ObservationDraft:
    project = str(event.get("project") or "")
    return draft(
        event,
        category="project_activity",
        target_namespace=NAMESPACES[kind],
        topic=f"{action} {name}"[:200],
        actors=_actors(kind, name, project),
        payload={"project": project, "kind": kind, "name": name, "action": action,
                 "agent": agent_of(event), **extra},
        key=key,
    )


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    drafts: list[ObservationDraft] = []
    seen: set[str] = set()
    for event in observed(events):
        project, session = str(event.get("project") or ""), correlation(event)["session"]
        if not project:
            continue
        found: list[tuple[str, str, str, dict[str, str]]] = [("project", project, "worked_on", {})]
        if event.get("subtype") == "assistant.tool_use":
            found.extend(_touches(event))
        for kind, name, action, extra in found:
            key = f"{session}:{kind}:{name}:{action}"
            if key not in seen:
                seen.add(key)
                drafts.append(_draft(event, kind, name, action, extra, key))
    return drafts


ANALYZER = Analyzer(name="project_activity", sources=("claude-code",), analyze=analyze)
