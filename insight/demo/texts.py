"""What the operator and the agent say in the demo sessions, in English and French.

Each list is a bank the generator draws from with a seeded random generator; `{...}`
fields are filled with names, paths and numbers that differ from session to session.
"""

from __future__ import annotations

PROJECTS = [
    # (cwd, language, stack)
    ("/home/operator/code/cortex", "en", "python"),
    ("/home/operator/code/billing-api", "fr", "python"),
    ("/home/operator/code/web-dashboard", "en", "node"),
    ("/home/operator/code/data-pipeline", "fr", "python"),
    ("/home/operator/code/infra", "en", "shell"),
    ("/home/operator/code/mobile-app", "en", "node"),
    ("/home/operator/code/site-vitrine", "fr", "node"),
    ("/home/operator/code/ml-experiments", "en", "python"),
    ("/home/operator/code/recettes", "fr", "python"),
    ("/home/operator/code/cli-tools", "en", "python"),
    ("/home/operator/code/docs-portal", "en", "node"),
    ("/home/operator/code/scraper", "fr", "python"),
    ("/home/operator/code/game-jam", "en", "node"),
    ("/home/operator/code/compta", "fr", "python"),
    ("/home/operator/code/homelab", "en", "shell"),
]

MODULES = ["client", "billing", "invoices", "users", "auth", "sync", "export", "parser",
           "scheduler", "storage", "reports", "webhooks", "cache", "search", "notify"]
FUNCTIONS = ["fetch_all", "retry_request", "compute_total", "parse_row", "load_config",
             "send_invoice", "refresh_token", "merge_records", "build_index", "render_page"]

TASKS = {
    "en": [
        "Add a retry with exponential backoff to the HTTP client in src/{module}.py.",
        "Fix the failing test in tests/test_{module}.py.",
        "Refactor src/{module}.py to use dataclasses instead of dicts.",
        "Add type hints to {function} and make mypy pass.",
        "Write tests for {function}, including the empty case.",
        "Can you add a /health endpoint that checks the database?",
        "Why does the import of {module} fail on CI?",
        "Rename {function} to something clearer and update the callers.",
        "Add pagination to the {module} listing, 50 items per page.",
        "The {module} export is slow on big accounts, can you profile it?",
    ],
    "fr": [
        "Ajoute un retry avec backoff exponentiel au client HTTP dans src/{module}.py.",
        "Corrige le test qui échoue dans tests/test_{module}.py.",
        "Refactorise src/{module}.py pour utiliser des dataclasses.",
        "Ajoute des annotations de type à {function} et fais passer mypy.",
        "Écris des tests pour {function}, y compris le cas vide.",
        "Tu peux ajouter un endpoint /health qui vérifie la base ?",
        "Pourquoi l'import de {module} échoue sur la CI ?",
        "Renomme {function} avec un nom plus clair et mets à jour les appels.",
        "Ajoute la pagination à la liste {module}, 50 éléments par page.",
        "L'export {module} est lent sur les gros comptes, tu peux profiler ?",
    ],
}

# (text, the tool or library it is about) -- operator instructions.
INSTRUCTIONS = {
    "en": [
        ("Always use uv, never pip.", "uv"),
        ("Never use requests in this project, use httpx.", "httpx"),
        ("Always run pytest -x before you tell me it works.", "pytest"),
        ("Don't ever push to main directly, open a branch.", "git"),
        ("Use ruff for formatting, not black.", "ruff"),
        ("Never edit the migrations by hand.", "django"),
        ("Always use pnpm here, never npm.", "pnpm"),
    ],
    "fr": [
        ("N'utilise jamais requests, utilise httpx.", "httpx"),
        ("Utilise toujours uv, jamais pip.", "uv"),
        ("Ne pousse jamais directement sur main.", "git"),
        ("Lance toujours les tests avant de me dire que c'est bon.", "pytest"),
        ("Utilise toujours pnpm, jamais npm.", "pnpm"),
        ("Ne modifie jamais les migrations à la main.", "django"),
    ],
}

# The operator contradicting an earlier instruction (the demo's conflicts).
REVERSALS = {
    "en": "Always use requests in this project, httpx breaks the build.",
    "fr": "Utilise toujours requests dans ce projet, httpx casse le build.",
}

PREFERENCES = {
    "en": [
        "I prefer small functions with type hints.",
        "I'd rather have f-strings than .format().",
        "I prefer pytest fixtures over setUp methods.",
        "I prefer one commit per logical change.",
    ],
    "fr": [
        "Je préfère les f-strings.",
        "Je préfère des fonctions courtes et typées.",
        "Je préfère qu'on garde les migrations séparées.",
        "Je préfère un commit par changement logique.",
    ],
}

CORRECTIONS = {
    "en": [
        "No, that's wrong: the settings live in config/settings.py.",
        "No, undo that.",
        "That's not what I asked, revert it.",
        "Stop, you broke the {module} tests.",
        "No no, keep the old signature for {function}.",
    ],
    "fr": [
        "Non, c'est faux : la config est dans config/settings.py.",
        "Non, annule ça.",
        "Ce n'est pas ce que j'ai demandé, reviens en arrière.",
        "Arrête, tu as cassé les tests de {module}.",
        "Non, garde l'ancienne signature de {function}.",
    ],
}

EXPRESSIVE = {
    "en": ["Great, thanks!", "Perfect, that's exactly it.", "Ugh, this is broken again.",
           "This is really annoying, the same error again."],
    "fr": ["Parfait, merci !", "Super, c'est exactement ça.", "Pfff, c'est encore cassé.",
           "C'est vraiment pénible, encore la même erreur."],
}

ACKS = {
    "en": ["Understood, I'll follow that from now on.", "You're right, sorry. Reverting.",
           "Got it.", "Done. All tests pass."],
    "fr": ["Compris, je m'y tiens désormais.", "Tu as raison, désolé. J'annule.",
           "C'est noté.", "C'est fait. Tous les tests passent."],
}

THINKING = [
    "The user wants {function} to handle the empty case. I should read src/{module}.py first.",
    "The test fails on an assertion; let me look at the fixture before changing the code.",
    "I need to check how {module} is imported elsewhere before renaming anything.",
]

# Recurring tool failures: the same failure in different sessions, with paths and
# numbers that differ (an error signature must group them).
ERRORS = {
    "module_not_found": (
        "Exit code 1\nTraceback (most recent call last):\n"
        '  File "{cwd}/src/{module}.py", line {line}, in <module>\n'
        "    import {lib}\nModuleNotFoundError: No module named '{lib}'"
    ),
    "pytest_assert": (
        "Exit code 1\n============================= FAILURES =============================\n"
        "_____________________________ test_{function} _____________________________\n\n"
        "    def test_{function}():\n>       assert total == {a}\nE       assert {b} == {a}\n\n"
        "tests/test_{module}.py:{line}: AssertionError\n"
        "=========== 1 failed, {passed} passed in {secs}s ==========="
    ),
    "pg_socket": (
        "Exit code 2\npsql: error: connection to server on socket "
        '"/tmp/.s.PGSQL.{port}" failed: No such file or directory\n'
        "\tIs the server running locally and accepting connections on that socket?"
    ),
    "npm_eresolve": (
        "Exit code 1\nnpm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n"
        "npm ERR! Found: react@18.{minor}.{patch}\nnpm ERR! node_modules/react"
    ),
    "mypy": (
        "Exit code 1\nsrc/{module}.py:{line}: error: Incompatible return value type "
        '(got "str | None", expected "str")  [return-value]\n'
        "Found {a} errors in {b} files (checked {passed} source files)"
    ),
    "permission_denied": "Exit code 126\nbash: {cwd}/scripts/deploy_{a}.sh: Permission denied",
    "file_missing": "<tool_use_error>File does not exist.</tool_use_error>",
}

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file). "
    "STOP what you are doing and wait for the user to tell you how to proceed."
)

# Commands needing a permission prompt: (command, granted?)
PERMISSION_COMMANDS = [
    "docker compose up -d", "git push origin {branch}", "rm -rf build/", "psql -c 'select 1'",
    "curl -sS https://api.example.com/v1/status", "kubectl apply -f deploy/{module}.yaml",
]

INSTALLS = {
    "python": [("uv add httpx", "httpx"), ("uv add pydantic", "pydantic"),
               ("pip install requests", "requests"), ("uv add --dev pytest-cov", "pytest-cov")],
    "node": [("pnpm add zod", "zod"), ("npm install axios", "axios"),
             ("pnpm add -D vitest", "vitest")],
    "shell": [("apt-get install -y jq", "jq"), ("brew install shellcheck", "shellcheck")],
}

IMPORTS = {
    "python": ["import httpx", "from pydantic import BaseModel", "import requests",
               "from dataclasses import dataclass", "import structlog"],
    "node": ["import { z } from 'zod';", "import axios from 'axios';",
             "import { describe, it } from 'vitest';"],
    "shell": ["source ./lib/common.sh", "set -euo pipefail"],
}

CODE_LINES = [
    "def {function}(items: list[dict], *, limit: int = {a}) -> list[dict]:",
    '    """Return the first items that match, newest first."""',
    "    result = [item for item in items if item.get(\"active\")]",
    "    for attempt in range({a}):",
    "        response = client.get(url, timeout={b})",
    "        if response.status_code == {code}:",
    "            return response.json()",
    "    raise RuntimeError(f\"{module} failed after {{attempt}} attempts\")",
    "class {Name}Service:",
    "    def __init__(self, repository: {Name}Repository) -> None:",
    "        self.repository = repository",
    "    total = sum(line.amount for line in invoice.lines)",
    "    logger.info(\"{module}.{function}\", extra={{\"count\": len(result)}})",
    "    return sorted(result, key=lambda r: r[\"created_at\"], reverse=True)[:limit]",
    "",
    "# TODO: move this to the {module} package",
    "@pytest.fixture",
    "def {module}_client(settings):",
    "    settings.{NAME}_TIMEOUT = {b}",
]
