"""`cortex nats`: the NATS responder (docs/nats.md), answering recall and context requests
until Ctrl-C or SIGTERM. Needs NATS_URL; `cortex up` starts it when NATS_URL is set."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError

from memory.config import config_get
from memory.management.base import CortexCommand
from memory.nats.responder import responder_run


class Command(CortexCommand):
    help = ("Answer recall and context requests on NATS until Ctrl-C (needs NATS_URL; "
            "cortex up starts it when NATS_URL is set). Subjects: docs/nats.md.")
    examples = ("NATS_URL=nats://127.0.0.1:4222 cortex nats",)

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.NATS_URL:
            raise CommandError("NATS_URL is not set: the NATS bus is off.")
        asyncio.run(self._serve())
        self.stdout.write("NATS responder stopped.")

    async def _serve(self) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)

        def ready(subjects: list[str]) -> None:
            self.stdout.write(f"NATS responder ready: {', '.join(subjects)}", ending="\n")
            self.stdout.flush()

        await responder_run(url=settings.NATS_URL, section=config_get().nats, stop=stop,
                            on_ready=ready)
