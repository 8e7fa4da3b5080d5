from __future__ import annotations

import pytest

from insight.analyzers.commands import command_prefix, imports_in, installs, permission_pattern


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("npm test", "npm test"),
        ("cd web && npm run build -- --watch", "npm run build"),
        ("FOO=1 uv run pytest -x", "uv run pytest"),
        ('git commit -m "x"', "git commit"),
        ("python -m pytest tests/", "python -m pytest"),
        ("sudo ls -la /", "ls"),
        ("/usr/bin/make all", "make all"),
    ],
)
def test_command_prefixes(command: str, prefix: str) -> None:
    assert command_prefix(command) == prefix


def test_permission_patterns() -> None:
    assert permission_pattern("Bash", {"command": "npm test"}) == "Bash(npm test:*)"
    assert permission_pattern("WebFetch", {"url": "https://docs.example.org/a"}) == (
        "WebFetch(domain:docs.example.org)")
    assert permission_pattern("mcp__github__create_issue", {}) == "mcp__github__create_issue"


def test_installs() -> None:
    assert installs('pip install -r req.txt requests==2.3 "django>=5"') == [
        ("pip", "requests"), ("pip", "django")]
    assert installs("npm i -D @types/node lodash@^4 && go get github.com/x/y@v1") == [
        ("npm", "@types/node"), ("npm", "lodash"), ("go", "github.com/x/y")]
    assert installs("npm install") == []


def test_imports_skip_the_standard_library_relative_imports_and_the_project_itself() -> None:
    code = "import os, requests\nfrom myproj.sub import y\nfrom . import x\nimport numpy as np"
    assert imports_in(code, "a.py", project="myproj") == ["numpy", "requests"]
    assert imports_in('const fs = require("fs"); const _ = require("lodash/fp")', "a.js") == [
        "lodash"]
    assert imports_in("import x", "notes.md") == []
