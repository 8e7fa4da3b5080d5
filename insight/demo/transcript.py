"""Writes Claude Code transcript records in the real on-disk format, one JSON line each."""

from __future__ import annotations

import base64
import random
import string
import uuid
from datetime import datetime, timedelta
from typing import IO, Any

import orjson

MODEL = "claude-sonnet-4-5-20250929"
_ALNUM = string.ascii_letters + string.digits


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


class TranscriptWriter:
    """One transcript file: keeps the clock, the parent chain and the envelope fields."""

    def __init__(
        self, fh: IO[bytes], *, rng: random.Random, session_id: str, cwd: str, version: str,
        branch: str, start: datetime, agent_id: str = "",
    ) -> None:
        self.fh, self.rng = fh, rng
        self.session_id, self.cwd, self.version, self.branch = session_id, cwd, version, branch
        self.clock, self.agent_id = start, agent_id
        self.parent: str | None = None
        self.bytes = 0

    # identifiers -----------------------------------------------------------------
    def new_uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def token(self, prefix: str, n: int = 22) -> str:
        return prefix + "".join(self.rng.choices(_ALNUM, k=n))

    # low level -------------------------------------------------------------------
    def write(self, record: dict[str, Any]) -> None:
        line = orjson.dumps(record) + b"\n"
        self.fh.write(line)
        self.bytes += len(line)

    def tick(self, low: float = 0.5, high: float = 30.0) -> None:
        self.clock += timedelta(seconds=self.rng.uniform(low, high))

    def envelope(self, rtype: str, **fields: Any) -> dict[str, Any]:
        self.tick()
        record: dict[str, Any] = {
            "parentUuid": self.parent, "isSidechain": bool(self.agent_id),
            "userType": "external", "cwd": self.cwd, "sessionId": self.session_id,
            "version": self.version, "gitBranch": self.branch,
        }
        if self.agent_id:
            record["agentId"] = self.agent_id
        record["type"] = rtype
        record.update(fields)
        record["uuid"] = self.new_uuid()
        record["timestamp"] = iso(self.clock)
        self.parent = record["uuid"]
        return record

    # records ---------------------------------------------------------------------
    def user_text(self, text: str, **extra: Any) -> None:
        self.write(self.envelope("user", message={"role": "user", "content": text}, **extra))

    def prompt(self, text: str) -> None:
        self.user_text(text, promptId=self.new_uuid())

    def prompt_with_image(self, text: str, image_bytes: int) -> None:
        data = base64.b64encode(self.rng.randbytes(image_bytes * 3 // 4)).decode()
        content = [
            {"type": "image",
             "source": {"type": "base64", "media_type": "image/png", "data": data}},
            {"type": "text", "text": text},
        ]
        self.write(self.envelope("user", message={"role": "user", "content": content}))

    def meta(self, text: str) -> None:
        self.user_text(text, isMeta=True)

    def interrupt(self, *, for_tool: bool = False) -> None:
        suffix = " for tool use" if for_tool else ""
        content = [{"type": "text", "text": f"[Request interrupted by user{suffix}]"}]
        self.write(self.envelope("user", message={"role": "user", "content": content}))

    def assistant(self, blocks: list[dict[str, Any]], *, model: str = MODEL) -> None:
        """One API response: one line per content block, sharing message id and request id."""
        message_id, request_id = self.token("msg_01"), self.token("req_011C", 20)
        output = self.rng.randint(20, 200)
        usage_base = {
            "input_tokens": self.rng.randint(3, 40),
            "cache_creation_input_tokens": self.rng.randint(0, 4000),
            "cache_read_input_tokens": self.rng.randint(10000, 90000),
            "service_tier": "standard",
        }
        for block in blocks:
            output += self.rng.randint(5, 400)
            message = {
                "model": model, "id": message_id, "type": "message", "role": "assistant",
                "content": [block], "stop_reason": None, "stop_sequence": None,
                "usage": {**usage_base, "output_tokens": output},
            }
            self.write(self.envelope("assistant", message=message, requestId=request_id))

    def tool_use(self, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        return {"type": "tool_use", "id": self.token("toolu_01"), "name": name, "input": tool_input}

    def tool_result(
        self, tool_use_id: str, content: str, *, is_error: bool = False, result: Any = None
    ) -> None:
        block: dict[str, Any] = {"tool_use_id": tool_use_id, "type": "tool_result",
                                 "content": content}
        if is_error:
            block["is_error"] = True
        fields: dict[str, Any] = {"message": {"role": "user", "content": [block]}}
        fields["toolUseResult"] = result if result is not None else (
            f"Error: {content}" if is_error else {"stdout": content, "stderr": "",
                                                  "interrupted": False, "isImage": False})
        self.write(self.envelope("user", **fields))

    def system(self, subtype: str, **fields: Any) -> None:
        self.write(self.envelope("system", subtype=subtype, level="info", **fields))

    def api_error(self) -> None:
        text = ('API Error: 529 {"type":"error","error":{"type":"overloaded_error",'
                '"message":"Overloaded"}}')
        self.system("api_error", error={"status": 529}, retryInMs=self.rng.randint(500, 8000),
                    retryAttempt=1, maxRetries=10)
        message = {
            "id": self.new_uuid(), "model": "<synthetic>", "role": "assistant", "type": "message",
            "content": [{"type": "text", "text": text}], "stop_reason": "stop_sequence",
            "stop_sequence": "", "usage": {"input_tokens": 0, "output_tokens": 0,
                                           "cache_creation_input_tokens": 0,
                                           "cache_read_input_tokens": 0},
        }
        self.write(self.envelope("assistant", message=message, isApiErrorMessage=True,
                                 error="unknown"))

    def compact(self, summary: str) -> None:
        leaf, self.parent = self.parent, None
        self.write(self.envelope(
            "system", subtype="compact_boundary", content="Conversation compacted",
            level="info", logicalParentUuid=leaf,
            compactMetadata={"trigger": "auto", "preTokens": self.rng.randint(150000, 170000)},
        ))
        text = ("This session is being continued from a previous conversation that ran out "
                f"of context. The conversation is summarized below:\n{summary}")
        self.user_text(text, isCompactSummary=True, isVisibleInTranscriptOnly=True)

    def snapshot(self) -> None:
        message_id = self.new_uuid()
        self.write({
            "type": "file-history-snapshot", "messageId": message_id, "isSnapshotUpdate": False,
            "snapshot": {"messageId": message_id, "trackedFileBackups": {},
                         "timestamp": iso(self.clock)},
        })

    def summary(self, text: str) -> None:
        self.write({"type": "summary", "summary": text, "leafUuid": self.new_uuid()})

    def permission_mode(self, mode: str) -> None:
        self.write({"type": "permission-mode", "permissionMode": mode,
                    "sessionId": self.session_id})
