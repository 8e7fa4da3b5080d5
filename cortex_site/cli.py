"""The `cortex` console script: `cortex up` is `manage.py up`, and so on."""

import os
import sys


def main() -> None:
    if sys.argv[1:2] == ["hook"]:
        # Hooks must start fast: no Django settings (they would start the embedded servers).
        from insight.hooks.main import main as hook_main

        sys.exit(hook_main(sys.argv[2:]))
    if sys.argv[1:2] == ["decaybench"]:
        # Pure Python (memory.working_set): no database or broker to start.
        from memory.working_set.cli import main as decaybench_main

        sys.exit(decaybench_main(sys.argv[2:]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    from django.core.management import execute_from_command_line  # lazy: not on the paths above

    execute_from_command_line(["cortex", *sys.argv[1:]])
