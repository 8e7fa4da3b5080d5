"""Payloads compressed in TOAST: lz4 when the server has it (cheap enough for the ingestion's
hot path), else pglz (the embedded server from wheels is built without lz4). Measured on the
generated corpus (bench/first_import.py): the events table goes from ~1.5x the corpus bytes
to below 1.0x. Rows written before keep how they were stored."""

from django.db import migrations

FORWARD = """
DO $$
BEGIN
    ALTER TABLE memory_memoryevent ALTER COLUMN payload SET STORAGE EXTENDED;
    IF EXISTS (SELECT 1 FROM pg_settings
               WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)) THEN
        ALTER TABLE memory_memoryevent ALTER COLUMN payload SET COMPRESSION lz4;
    ELSE
        ALTER TABLE memory_memoryevent ALTER COLUMN payload SET COMPRESSION pglz;
    END IF;
END $$;
"""

BACKWARD = """
ALTER TABLE memory_memoryevent ALTER COLUMN payload SET COMPRESSION DEFAULT;
ALTER TABLE memory_memoryevent ALTER COLUMN payload SET STORAGE EXTERNAL;
"""


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0017_recall_latency_indexes"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
