"""The sleep cycle has one name: ConsolidationRun becomes SleepCycleRun, and the beat entry
seeded under the old task name follows (an operator's schedule edits are kept)."""

from django.db import migrations

OLD_TASK, NEW_TASK = "memory.consolidation_run", "memory.sleep_cycle_run"
OLD_NAME, NEW_NAME = "memory: sleep cycle (nightly consolidation)", "memory: sleep cycle"


def _rename_beat_entry(apps, schema_editor, old=(OLD_TASK, OLD_NAME), new=(NEW_TASK, NEW_NAME)):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(task=old[0]).update(task=new[0])
    if not PeriodicTask.objects.filter(name=new[1]).exists():
        PeriodicTask.objects.filter(name=old[1]).update(name=new[1])


def _restore_beat_entry(apps, schema_editor):
    _rename_beat_entry(apps, schema_editor, old=(NEW_TASK, NEW_NAME), new=(OLD_TASK, OLD_NAME))


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0009_event_storage"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.RenameModel("ConsolidationRun", "SleepCycleRun"),
        migrations.RenameIndex(
            model_name="sleepcyclerun", new_name="sleep_cycle_status", old_name="consolidation_status"
        ),
        migrations.RunPython(_rename_beat_entry, _restore_beat_entry),
    ]
