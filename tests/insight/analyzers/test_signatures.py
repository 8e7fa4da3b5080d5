from __future__ import annotations

import pytest

from insight.analyzers.signatures import error_signature, exit_code_of, normalized_error

TRACEBACK = """Traceback (most recent call last):
  File "{path}", line {line}, in <module>
    import {module}
ModuleNotFoundError: No module named '{module}'
"""


def _sig(text: str, tool: str = "Bash") -> str:
    return error_signature(tool=tool, text=text)[0]


def test_one_failure_in_two_sessions_has_one_signature() -> None:
    first = TRACEBACK.format(path="/Users/chip/dev/music/run.py", line=9, module="torch")
    second = TRACEBACK.format(path="/home/bob/proj/x/compare_models.py", line=142, module="torch")
    assert _sig(first) == _sig(second)


def test_two_different_failures_have_two_signatures() -> None:
    torch = TRACEBACK.format(path="/a/run.py", line=9, module="torch")
    numpy = TRACEBACK.format(path="/a/run.py", line=9, module="numpy")
    assert _sig(torch) != _sig(numpy)
    assert _sig("EISDIR: illegal operation on a directory, read") != _sig(
        "ENOENT: no such file or directory, open '/a/b.txt'")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5432 at 2025-06-01T10:00:00.123Z",
         "Exit code 1\nError: connect ECONNREFUSED 10.0.0.7:6543 at 2025-07-14T22:13:09Z"),
        ("fatal: could not read ref refs/heads/feature-x at 3f2a9c1d8e",
         "fatal: could not read ref refs/heads/feature-x at 9b8c7d6e5f4a"),
        ("job 0b9f0c2e-1e0a-4a53-a4a1-9d7c5d2b7e11 failed after 31 retries",
         "job 5d6f9a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b failed after 2 retries"),
        ("erreur : impossible d'ouvrir le fichier /home/op/données/a.csv (ligne 12)",
         "erreur : impossible d'ouvrir le fichier /tmp/export/b.csv (ligne 907)"),
        ("\x1b[31mERROR\x1b[0m tests/test_api.py::test_post - AssertionError",
         "ERROR tests/test_api.py::test_post - AssertionError"),
    ],
)
def test_paths_numbers_hashes_uuids_timestamps_and_colours_do_not_matter(
    first: str, second: str
) -> None:
    assert _sig(first) == _sig(second)


def test_noise_around_the_error_does_not_matter() -> None:
    noisy = ('npm warn Unknown env config "store-dir".\n\nsrc/a.test.ts(6,33): error TS2307: '
             "Cannot find module '@testing-library/react'.")
    quiet = "src/b.test.ts(9,1): error TS2307: Cannot find module '@testing-library/react'."
    other = "src/b.test.ts(9,1): error TS2307: Cannot find module 'vitest'."
    assert _sig(noisy) == _sig(quiet) != _sig(other)


def test_one_root_cause_through_two_tools_is_one_signature_unless_the_message_is_terse() -> None:
    text = "<tool_use_error>File has not been read yet. Read it first before writing to it."
    assert _sig(text, "Edit") == _sig(text, "Write")
    assert _sig("Error", "Edit") != _sig("Error", "Bash")


def test_the_normalized_message_is_readable_and_the_exit_code_is_read() -> None:
    text = "Exit code 2\nls: cannot access '/srv/data/2025': No such file or directory"
    assert exit_code_of(text) == 2
    assert normalized_error(text) == "ls: cannot access '<path>': no such file or directory"
