"""Event payloads as bytea, packed by memory.event_payload (lz4 when it pays, compressed by
Cortex before they are sent): the embedded server has no lz4, and its pglz and jsonb parse
were half of its time on ingestion. Rows written before are converted as their JSON text
(header 0x02: read with json.loads, as jsonb's numbers may be beyond 64 bits), compressed by
pglz in the rewrite; new rows are stored as they come (STORAGE EXTERNAL: no pglz over lz4).

Backwards works while no row is lz4-compressed (a database migrated and never written to)."""

import memory.models.fields
from django.db import migrations

FORWARD = """
ALTER TABLE memory_memoryevent ALTER COLUMN payload DROP DEFAULT;
ALTER TABLE memory_memoryevent ALTER COLUMN payload TYPE bytea
    USING '\\x02'::bytea || convert_to(payload::text, 'UTF8');
ALTER TABLE memory_memoryevent ALTER COLUMN payload SET STORAGE EXTERNAL;
"""

BACKWARD = """
ALTER TABLE memory_memoryevent ALTER COLUMN payload SET STORAGE EXTENDED;
ALTER TABLE memory_memoryevent ALTER COLUMN payload TYPE jsonb
    USING convert_from(substring(payload FROM 2), 'UTF8')::jsonb;
"""


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0026_retain_hot_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, BACKWARD)],
            state_operations=[
                migrations.AlterField(
                    model_name="memoryevent",
                    name="payload",
                    field=memory.models.fields.PackedJSONField(default=dict),
                ),
            ],
        ),
    ]
