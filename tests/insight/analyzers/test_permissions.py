from __future__ import annotations

from insight.analyzers.permissions import analyze
from tests.insight.analyzers.factories import event, tool_result, tool_use

REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected "
            "(eg. if it was a file edit, the new_string was NOT written to the file). The user "
            "provided the following reason for the rejection:  {reason}")


def test_a_refusal_names_the_tool_the_rule_pattern_and_the_reason() -> None:
    events = [tool_use("Bash", {"command": "cd web && npm install lodash"}, use_id="t1"),
              tool_result(REJECTED.format(reason="use pnpm"), use_id="t1", is_error=True)]
    (found,) = analyze(events)
    assert found.category == "permission_request"
    assert found.target_namespace == "agent:claude-code:skill"
    assert (found.payload["decision"], found.payload["tool"]) == ("denied", "Bash")
    assert found.payload["pattern"] == "Bash(npm install:*)"
    assert found.payload["reason"] == "use pnpm"


def test_a_refusal_in_french_keeps_the_french_reason() -> None:
    events = [tool_use("Bash", {"command": "rm -rf build"}, use_id="t1"),
              tool_result(REJECTED.format(reason="ne supprime jamais build"), use_id="t1",
                          is_error=True)]
    (found,) = analyze(events)
    assert found.payload["pattern"] == "Bash(rm:*)"
    assert found.payload["reason"] == "ne supprime jamais build"


def test_requests_that_could_not_be_asked() -> None:
    events = [
        tool_use("WebSearch", {"query": "x"}, use_id="t1"),
        tool_result("Claude requested permissions to use WebSearch, but you haven't granted it "
                    "yet.", use_id="t1", is_error=True),
        tool_use("Write", {"file_path": "/p/CLAUDE.md", "content": ""}, use_id="t2"),
        tool_result("Claude requested permissions to write to /p/CLAUDE.md, but you haven't "
                    "granted it yet.", use_id="t2", is_error=True),
        tool_result('This Bash command contains multiple operations. The following part requires '
                    'approval: uv run pytest -x 2>&1', use_id="t3", is_error=True),
    ]
    found = analyze(events)
    assert [(d.payload["decision"], d.payload["pattern"]) for d in found] == [
        ("requested", "WebSearch"), ("requested", "Write"), ("requested", "Bash(uv run pytest:*)"),
    ]
    assert found[1].payload["path"] == "/p/CLAUDE.md"


def test_a_gated_call_that_ran_was_granted_once_per_session_and_pattern() -> None:
    events = []
    for index, session in enumerate(["s1", "s1", "s2"]):
        use_id = f"t{index}"
        events += [tool_use("Bash", {"command": f"npm test -- --grep case{index}"},
                            use_id=use_id, session=session),
                   tool_result("ok", use_id=use_id, is_error=False, session=session)]
    events += [tool_use("Read", {"file_path": "/a"}, use_id="r1"),
               tool_result("text", use_id="r1")]
    found = analyze(events)
    assert [(d.payload["decision"], d.payload["pattern"], d.correlation["session"])
            for d in found] == [("granted", "Bash(npm test:*)", "s1")] * 2 + [
        ("granted", "Bash(npm test:*)", "s2")]
    assert found[0].payload["inferred"] is True
    assert found[0].key == found[1].key != found[2].key


def test_a_permission_mode_change_is_a_blanket_grant() -> None:
    mode = event("permission-mode", {"type": "permission-mode",
                                     "permissionMode": "acceptEdits"}, actor="system")
    (found,) = analyze([mode])
    assert (found.payload["decision"], found.payload["pattern"]) == ("mode", "mode:acceptEdits")
