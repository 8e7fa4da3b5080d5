"""Memories embedded in the context of the turn they answer (the previous one of their
conversation), beside their own vectors: recall scores a reply by both. Every memory is
embedded again once (the background pass reuses the own vectors it finds and computes only
the context's)."""

import pgvector.django.sparsevec
import pgvector.django.vector
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0028_memory_sparse_vectors'),
    ]

    operations = [
        migrations.AddField(
            model_name='memoryembedding',
            name='context_sparse',
            field=pgvector.django.sparsevec.SparseVectorField(
                blank=True, dimensions=16384, null=True),
        ),
        migrations.AddField(
            model_name='memoryembedding',
            name='context_vector',
            field=pgvector.django.vector.VectorField(
                blank=True, dimensions=384, null=True),
        ),
        migrations.RunSQL("UPDATE memory_memory SET embedded = false WHERE embedded",
                          migrations.RunSQL.noop),
    ]
