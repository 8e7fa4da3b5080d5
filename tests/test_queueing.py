"""memory.queueing: a service names a task; it is sent once the transaction commits, eagerly
when Celery is told to, and a broker that is away is logged, not raised."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import transaction

from cortex_site.celery import app
from memory.queueing import task_enqueue, task_send

received: list[dict[str, Any]] = []


@app.task(name="tests.queueing_echo")  # type: ignore[untyped-decorator]  # Celery is untyped
def _echo(**kwargs: Any) -> None:
    received.append(kwargs)


@pytest.fixture
def eager() -> Iterator[None]:
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    received.clear()
    try:
        yield
    finally:
        app.conf.task_always_eager = before


@pytest.mark.django_db
def test_sent_after_commit_only_and_the_callback_names_the_task(
    eager: None, django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    with django_capture_on_commit_callbacks() as callbacks, transaction.atomic():
        task_enqueue("tests.queueing_echo", ids=["a", "b"])
        assert received == []
    assert len(callbacks) == 1 and "tests.queueing_echo" in repr(callbacks[0])
    callbacks[0]()
    assert received == [{"ids": ["a", "b"]}]


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_sends_nothing(eager: None) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        task_enqueue("tests.queueing_echo", n=1)
        raise RuntimeError("rollback")
    assert received == []
    task_enqueue("tests.queueing_echo", n=2)  # no transaction: at once
    assert received == [{"n": 2}]


def test_a_broker_that_is_away_is_logged_not_raised(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    def away(*args: Any, **kwargs: Any) -> None:
        raise OSError("connection refused")

    monkeypatch.setattr(_echo, "apply_async", away)
    task_send("tests.queueing_echo", n=3)
    (record,) = [r for r in caplog.records if r.name == "memory.queueing"]
    assert record.getMessage() == ("could not queue tests.queueing_echo (OSError); its sweep "
                                   "will queue it again")
    assert record.exc_info is None  # no traceback in a command's output


def test_a_broker_error_names_the_first_cause_it_was_raised_from(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """As kombu raises it: its error from redis's, from the socket's, itself raised while
    handling an empty pool's IndexError (a context, not a cause: not named)."""
    def away(*args: Any, **kwargs: Any) -> None:
        try:
            [].pop()
        except IndexError:
            try:
                raise ConnectionRefusedError("refused")
            except ConnectionRefusedError as refused:
                try:
                    raise ConnectionError("redis://:hunter2@127.0.0.1:1/0") from refused
                except ConnectionError as lost:
                    raise LookupError("redis://:hunter2@127.0.0.1:1/0") from lost

    monkeypatch.setattr(_echo, "apply_async", away)
    task_send("tests.queueing_echo", n=4)
    assert "(LookupError, from ConnectionRefusedError); its sweep" in caplog.text
    assert "hunter2" not in caplog.text


def test_an_unknown_task_name_is_an_error() -> None:
    with pytest.raises(KeyError):
        task_send("tests.no_such_task")


def test_a_process_that_loads_django_queues_with_cortex_s_app() -> None:
    """The settings create the Celery app: without it, `shared_task` would send to Celery's
    default broker (amqp on localhost), and nothing would ever run the task."""
    code = ("import django; django.setup()\n"
            "from celery import current_app\n"
            "from django.conf import settings\n"
            "print(current_app.main, current_app.conf.broker_url == settings.CELERY_BROKER_URL)")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "cortex_site.settings"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, check=True).stdout.splitlines()
    assert out[-1] == "cortex True"
