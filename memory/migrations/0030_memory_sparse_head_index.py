"""The sparse vectors' HNSW index holds each memory's 64 heaviest latent terms (of up to
256), not all of them: it builds about three times faster (an HNSW build compares vectors
term by term; on all 256 terms the index took ten times the dense one's time, hours for
200,000 memories), and every candidate it finds is still scored on all its terms. On
REALTALK the same recall figures within 0.004 (docs/recall.md)."""

from django.db import migrations

HEAD_SQL = """
CREATE FUNCTION cortex_sparse_head(v sparsevec, k integer) RETURNS sparsevec
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT ('{' || coalesce(string_agg(t.i::text || ':' || t.x, ',' ORDER BY t.i), '')
                || '}/' || split_part(v::text, '/', 2))::sparsevec
        FROM (SELECT split_part(p, ':', 1)::integer AS i, split_part(p, ':', 2) AS x
              FROM unnest(string_to_array(trim(both '{}' FROM split_part(v::text, '/', 1)),
                                          ',')) AS p
              ORDER BY split_part(p, ':', 2)::float8 DESC, 1 LIMIT k) AS t);
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX memory_embedding_sparse_head_hnsw ON memory_memoryembedding
    USING hnsw ((cortex_sparse_head(sparse, 64)::sparsevec(16384)) sparsevec_ip_ops)
    WITH (m = 16, ef_construction = 64);
"""

REVERSE_SQL = """
DROP INDEX memory_embedding_sparse_head_hnsw;
DROP FUNCTION cortex_sparse_head(sparsevec, integer);
"""


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0029_memory_context_vectors'),
    ]

    operations = [
        # IF EXISTS: a database whose index was dropped by hand (to load faster, say)
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(
                "DROP INDEX IF EXISTS memory_embedding_sparse_hnsw",
                "CREATE INDEX memory_embedding_sparse_hnsw ON memory_memoryembedding "
                "USING hnsw (sparse sparsevec_ip_ops) WITH (m = 16, ef_construction = 64)")],
            state_operations=[migrations.RemoveIndex(model_name='memoryembedding',
                                                     name='memory_embedding_sparse_hnsw')]),
        migrations.RunSQL(HEAD_SQL, REVERSE_SQL),
    ]
