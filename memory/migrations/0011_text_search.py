"""Text search for English and French alike, accent-insensitive: two configurations that
unaccent each word before stemming it (`cortex_en`, `cortex_fr`). Being configurations,
`to_tsvector('cortex_en', ...)` stays immutable, so generated columns and indexes may use
them. See docs/recall.md."""

from django.contrib.postgres.operations import UnaccentExtension
from django.db import migrations

CONFIGS = {"cortex_en": "english", "cortex_fr": "french"}
TOKENS = "asciiword, asciihword, hword_asciipart, word, hword, hword_part"


def _create(name: str, base: str) -> str:
    return (f"CREATE TEXT SEARCH CONFIGURATION {name} (COPY = pg_catalog.{base}); "
            f"ALTER TEXT SEARCH CONFIGURATION {name} ALTER MAPPING FOR {TOKENS} "
            f"WITH unaccent, {base}_stem;")


class Migration(migrations.Migration):
    dependencies = [("memory", "0010_sleep_cycle_run")]

    operations = [
        UnaccentExtension(),
        *(migrations.RunSQL(_create(name, base), f"DROP TEXT SEARCH CONFIGURATION {name};")
          for name, base in CONFIGS.items()),
    ]
