"""`memory_retainattempt`: the chunk the Retain Job is trying, one row a chunk (the attempt
an observation counts when its worker dies), instead of an UPDATE of every observation."""

import django.contrib.postgres.fields
from django.db import migrations, models

import memory.clock


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0022_retain_drop_like_indexes'),
    ]

    operations = [
        migrations.CreateModel(
            name='RetainAttempt',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name='ID')),
                ('observation_ids', django.contrib.postgres.fields.ArrayField(
                    base_field=models.CharField(max_length=26), size=None)),
                ('started_at', models.DateTimeField(default=memory.clock.now)),
            ],
        ),
    ]
