"""Projects, files and libraries touched -> `project_activity`: the project a session
works in, the files it reads, writes and edits, the packages it installs (`pip install`,
`uv add`, `npm install`, ...) and the libraries the code it writes imports. Each is
recorded once per session. The project is the one its path names (projects.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePosixPath
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
    tool_input,
)
from insight.analyzers.projects import Project, project_of

FILE_ACTIONS = {"Write": "written", "Edit": "edited", "MultiEdit": "edited",
                "NotebookEdit": "edited", "Read": "read"}
NAMESPACES = {"project": namespaces.PROJECT, "file": namespaces.ARTIFACT,
              "library": namespaces.ARTIFACT}


def _written_code(tool: str, data: Mapping[str, Any]) -> str:
    if tool == "Write":
        return str(data.get("content") or "")
    if tool == "Edit":
        return str(data.get("new_string") or "")
    if tool == "MultiEdit" and isinstance(data.get("edits"), list):
        return "\n".join(str(e.get("new_string") or "") for e in data["edits"]
                         if isinstance(e, Mapping))
    return ""


def _paths(event: Event) -> Iterator[str]:
    for block in blocks(event, "tool_use"):
        data = tool_input(block)
        if block.get("name") in FILE_ACTIONS:
            yield str(data.get("file_path") or data.get("notebook_path") or "")


def local_modules(events: Sequence[Event]) -> set[str]:
    """The modules the batch's sessions read or write themselves (`diverse_musical_ai` for
    `.../diverse_musical_ai.py`): importing one is no use of a library."""
    return {PurePosixPath(path.replace("\\", "/")).stem for event in events
            if event.get("subtype") == "assistant.tool_use" for path in _paths(event) if path}


def _touches(event: Event, project: Project,
             local: set[str]) -> Iterator[tuple[str, str, str, dict[str, str]]]:
    """(kind, name, action, extra) for what one tool call touches; a file's name is its
    name in the project (`<project>/<path>`), or its own path outside it."""
    for block in blocks(event, "tool_use"):
        tool, data = str(block.get("name") or ""), tool_input(block)
        if tool in FILE_ACTIONS:
            path = str(data.get("file_path") or data.get("notebook_path") or "")
            name, inside = project.file_name(path) if path else ("", False)
            if name:
                yield "file", name, FILE_ACTIONS[tool], {"tool": tool, "inside": str(inside)}
                for library in imports_in(_written_code(tool, data), path, project=project.name):
                    if library not in local:
                        yield "library", library, "imported", {"file": name}
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


def _draft(event: Event, project: str, kind: str, name: str, action: str,
           extra: dict[str, str], key: str) -> ObservationDraft:
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
    local = local_modules(events)
    for event in observed(events):
        project, session = project_of(event), correlation(event)["session"]
        if not project.name:
            continue
        found: list[tuple[str, str, str, dict[str, str]]] = [
            ("project", project.name, "worked_on", {})]
        if event.get("subtype") == "assistant.tool_use":
            found.extend(_touches(event, project, local))
        for kind, name, action, extra in found:
            key = f"{session}:{kind}:{name}:{action}"
            if key not in seen:
                seen.add(key)
                drafts.append(_draft(event, project.name, kind, name, action, extra, key))
    return drafts


ANALYZER = Analyzer(name="project_activity", sources=("claude-code",), analyze=analyze)
