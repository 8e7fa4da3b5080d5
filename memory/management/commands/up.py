"""`cortex up`: the whole system in one command, embedded or on DATABASE_URL / REDIS_URL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from memory.clock import now
from memory.config import config_get
from memory.runtime import runtime_stopped, runtime_write
from memory.services.operators import operator_ensure
from memory.services.setup import cortex_prepare
from memory.serving import WEB_THREADS, WEB_WORKERS, web_command


class Command(BaseCommand):
    help = ("Run Cortex: database, migrations, taxonomy, web server, Celery beat and two "
            "workers (short tasks; the long jobs); the NATS responder when NATS_URL is set.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--workers", type=int, default=WEB_WORKERS,
                            help="web worker processes")
        parser.add_argument("--threads", type=int, default=WEB_THREADS,
                            help="threads per web worker")

    def handle(self, *args: Any, host: str, port: int, workers: int, threads: int,
               **options: Any) -> None:
        cortex_prepare()
        credentials = operator_ensure()
        children = self._start_children(host=host, port=port, workers=workers, threads=threads)
        base = f"http://{host}:{port}"
        self._record(host=host, port=port)
        self.stdout.write(f"Cortex is up.\n  admin: {base}/admin/\n  API:   {base}/api/ "
                          f"(docs {base}/api/docs/)")
        if credentials:
            self.stdout.write(
                "  operator account created (shown once): "
                f"username {credentials.username}  password {credentials.password}"
            )
        if settings.NATS_URL:
            self.stdout.write(f"  NATS:  {config_get().nats.prefix}.memory.query.recall, .context")
        self.stdout.write("Ctrl-C stops everything.")
        try:
            self._supervise(children)
        finally:
            runtime_stopped(settings.CORTEX_HOME, pid=os.getpid(), at=now().isoformat())

    @staticmethod
    def _record(*, host: str, port: int) -> None:
        """Where this Cortex listens, for the hooks and the plugin (memory/runtime.py)."""
        reach = "127.0.0.1" if host in ("0.0.0.0", "", "*") else host  # noqa: S104
        reach = "[::1]" if reach == "::" else (f"[{reach}]" if ":" in reach else reach)
        runtime_write(settings.CORTEX_HOME, {
            "pid": os.getpid(), "url": f"http://{reach}:{port}", "host": host, "port": port,
            "started_at": now().isoformat(), "database_url": settings.DATABASE_URL,
            "redis_url": settings.REDIS_URL,
        })

    def _start_children(
        self, *, host: str, port: int, workers: int, threads: int
    ) -> list[subprocess.Popen[bytes]]:
        env = {**os.environ, "DATABASE_URL": settings.DATABASE_URL, "REDIS_URL": settings.REDIS_URL}
        bin_dir = os.path.dirname(sys.executable)
        commands = [
            [*web_command(bin_dir=bin_dir, bind=f"{host}:{port}", workers=workers,
                          threads=threads), "--access-logfile", "-"],
            # Retain and analysis on one worker, the long jobs on another: a three-hour sleep
            # cycle never holds up the short tasks.
            self._worker(bin_dir, "default", settings.CORTEX_QUEUE_DEFAULT, concurrency=2),
            self._worker(bin_dir, "long", settings.CORTEX_QUEUE_LONG, concurrency=1),
            [os.path.join(bin_dir, "celery"), "-A", "cortex_site", "beat", "--loglevel", "INFO",
             "--scheduler", "django_celery_beat.schedulers:DatabaseScheduler",
             "--schedule", str(settings.CORTEX_HOME / "celerybeat-schedule")],
        ]
        if settings.NATS_URL:  # the NATS responder (docs/nats.md)
            commands.append([os.path.join(bin_dir, "cortex"), "nats"])
        # Each child in its own session: Ctrl-C reaches us only, and we stop them in order.
        return [subprocess.Popen(cmd, env=env, start_new_session=True) for cmd in commands]

    @staticmethod
    def _worker(bin_dir: str, name: str, queue: str, *, concurrency: int) -> list[str]:
        return [os.path.join(bin_dir, "celery"), "-A", "cortex_site", "worker",
                "--loglevel", "INFO", "--concurrency", str(concurrency), "-Q", queue,
                "-n", f"{name}@%h"]

    def _supervise(self, children: list[subprocess.Popen[bytes]]) -> None:
        stopping = False

        def stop(signum: int, frame: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        while not stopping:
            if any(child.poll() is not None for child in children):
                self.stderr.write("A Cortex process exited; stopping the others.")
                break
            time.sleep(0.2)
        self._stop_children(children)
        self.stdout.write("Cortex stopped.")

    @staticmethod
    def _stop_children(children: list[subprocess.Popen[bytes]]) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for child in children:
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
