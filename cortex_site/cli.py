"""The `cortex` console script: `cortex up` is `manage.py up`, and so on."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(["cortex", *sys.argv[1:]])
