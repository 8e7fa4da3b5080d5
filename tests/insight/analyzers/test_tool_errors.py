from __future__ import annotations

from typing import Any

from insight.analyzers.tool_errors import analyze
from tests.insight.analyzers.factories import assistant_text, tool_result, tool_use

MISSING_TORCH = """Traceback (most recent call last):
  File "{path}", line {line}, in <module>
    import torch
ModuleNotFoundError: No module named 'torch'"""


def _failure(session: str, path: str, line: int, *, use_id: str) -> list[dict[str, Any]]:
    return [
        tool_use("Bash", {"command": f"python {path}"}, use_id=use_id, session=session),
        tool_result(f"Exit code 1\n{MISSING_TORCH.format(path=path, line=line)}",
                    use_id=use_id, is_error=True, session=session),
    ]


def test_a_failed_tool_call_is_a_tool_error_named_after_its_tool() -> None:
    (found,) = analyze(_failure("s1", "/home/op/a/train.py", 9, use_id="toolu_1"))
    assert found.category == "tool_error"
    assert found.target_namespace == "agent:claude-code:rc"
    assert found.payload["tool"] == "Bash"
    assert found.payload["command"] == "python /home/op/a/train.py"
    assert found.payload["exit_code"] == 1
    assert found.payload["normalized"] == "modulenotfounderror: no module named 'torch'"
    assert found.sentiment == "negative"


def test_the_same_failure_in_two_sessions_groups_and_a_different_one_does_not() -> None:
    first = analyze(_failure("session-a", "/home/op/a/train.py", 9, use_id="toolu_a"))
    second = analyze(_failure("session-b", "/srv/b/scripts/eval.py", 212, use_id="toolu_b"))
    other = analyze([
        tool_use("Bash", {"command": "pytest"}, use_id="toolu_c", session="session-c"),
        tool_result("Exit code 1\nModuleNotFoundError: No module named 'numpy'",
                    use_id="toolu_c", is_error=True, session="session-c"),
    ])
    assert first[0].correlation["session"] != second[0].correlation["session"]
    assert first[0].payload["signature"] == second[0].payload["signature"]
    assert other[0].payload["signature"] != first[0].payload["signature"]


def test_a_french_error_message_groups_the_same_way() -> None:
    def failing(path: str, use_id: str) -> list[dict[str, Any]]:
        return [tool_use("Bash", {"command": f"./export.sh {path}"}, use_id=use_id),
                tool_result(f"Exit code 2\nerreur : impossible d'ouvrir le fichier {path} : "
                            "permission refusée", use_id=use_id, is_error=True)]
    one = analyze(failing("/home/op/données/mars.csv", "t1"))
    two = analyze(failing("/tmp/avril.csv", "t2"))
    three = analyze([tool_use("Bash", {"command": "./export.sh"}, use_id="t3"),
                     tool_result("erreur : espace disque insuffisant", use_id="t3",
                                 is_error=True)])
    assert one[0].payload["signature"] == two[0].payload["signature"]
    assert three[0].payload["signature"] != one[0].payload["signature"]


def test_a_non_zero_exit_code_is_an_error_even_without_the_flag() -> None:
    events = [tool_use("Bash", {"command": "make"}, use_id="t1"),
              tool_result("Exit code 2\nmake: *** [all] Error 2", use_id="t1")]
    (found,) = analyze(events)
    assert found.payload["exit_code"] == 2


def test_refusals_permission_checks_and_successes_are_not_tool_errors() -> None:
    events = [
        tool_result("The user doesn't want to proceed with this tool use. The tool use was "
                    "rejected.", use_id="t1", is_error=True),
        tool_result("Claude requested permissions to use WebSearch, but you haven't granted it "
                    "yet.", use_id="t2", is_error=True),
        tool_result("This command requires approval", use_id="t3", is_error=True),
        tool_result("Exit code 0\nall good", use_id="t4"),
        tool_result("[Request interrupted by user for tool use]", use_id="t5", is_error=True),
    ]
    assert analyze(events) == []


def test_the_call_can_come_from_a_context_event_that_is_not_itself_observed() -> None:
    call = {**tool_use("Edit", {"file_path": "/a.py"}, use_id="t1"), "context": True}
    result = tool_result("<tool_use_error>String to replace not found in file.</tool_use_error>",
                         use_id="t1", is_error=True, tool_use_result="Error: String to replace")
    (found,) = analyze([call, result])
    assert found.payload["tool"] == "Edit"
    assert found.event_ids == (result["id"],)
    assert analyze([call]) == []


def test_an_unknown_call_and_a_subagent_still_give_an_error() -> None:
    (found,) = analyze([tool_result("", use_id="t9", is_error=True, thread="agent-3",
                                    tool_use_result="Error: EISDIR: illegal operation")])
    assert found.payload["tool"] == "unknown"
    assert found.payload["agent"] == "claude-code:agent-3"
    assert found.target_namespace == "agent:claude-code:rc"


def test_an_api_error_is_a_tool_error_of_the_api() -> None:
    event = assistant_text('API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}',
                           record={"isApiErrorMessage": True, "error": "unknown"})
    (found,) = analyze([event])
    assert found.payload["tool"] == "anthropic-api"
