"""/api/sessions/<id>/working-set/: the turn-based engine for one agent session
(docs/working-set.md).

The turn is explicit in every request and never goes backwards; the clock plays no part.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory.api.permissions import scope_required
from memory.api.schema import error_responses
from memory.limits import (
    MEM_ID_CHARS,
    TURN_MAX,
    WORKING_CONTENT_CHARS,
    WORKING_SET_PAGE,
    WORKING_SET_PAGE_MAX,
)
from memory.models.working_set import SESSION_KEY_PATTERN
from memory.selectors.working_set import working_set_view
from memory.services.working_set import (
    SessionNotFound,
    WorkingSetChange,
    working_item_recall,
    working_item_register,
    working_set_step,
)

SESSION_PARAMETER = OpenApiParameter(
    "session_id", str, OpenApiParameter.PATH, pattern=f"^{SESSION_KEY_PATTERN}$",
    description="The agent's own session id: letters, digits and . _ : - (up to 200); "
                "any other id is a 404.",
)


class _StrictSerializer(serializers.Serializer[Any]):
    """Refuses fields it does not know: a misspelt field is an error, not a silent default."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        data = self.initial_data if isinstance(self.initial_data, dict) else {}
        unknown = sorted(str(name) for name in data if name not in self.fields)
        if unknown:
            raise ValidationError({name: "Unknown field." for name in unknown})
        return attrs


class StepInSerializer(_StrictSerializer):
    turn = serializers.IntegerField(
        min_value=0, max_value=TURN_MAX,
        help_text="The session's current turn; never lower than a turn already sent.",
    )


class RecallInSerializer(StepInSerializer):
    mem_id = serializers.CharField(max_length=MEM_ID_CHARS)


class RegisterInSerializer(RecallInSerializer):
    content = serializers.CharField(max_length=WORKING_CONTENT_CHARS, allow_blank=True, default="",
                                    trim_whitespace=False)
    is_foundational = serializers.BooleanField(default=False)


class ItemOutSerializer(serializers.Serializer[Any]):
    mem_id = serializers.CharField()
    content = serializers.CharField()
    is_foundational = serializers.BooleanField()
    stability = serializers.FloatField()
    recall_count = serializers.IntegerField()
    registered_turn = serializers.IntegerField()
    last_touched_turn = serializers.IntegerField()
    evicts_at_turn = serializers.IntegerField(
        help_text="The turn it will be evicted at unless recalled before."
    )
    retention = serializers.FloatField(help_text="exp(-(turn - last_touched_turn) / stability)")


class StepOutSerializer(serializers.Serializer[Any]):
    turn = serializers.IntegerField()
    evicted = serializers.ListField(child=serializers.CharField(),
                                    help_text="Evicted when the session reached this turn.")
    working_set_size = serializers.IntegerField()


class RecallOutSerializer(StepOutSerializer):
    recalled = serializers.BooleanField(help_text="False when the item is not present.")
    item = ItemOutSerializer(allow_null=True)


class RegisterOutSerializer(StepOutSerializer):
    created = serializers.BooleanField(
        help_text="False when the item was still present: it is left unchanged."
    )
    item = ItemOutSerializer()


class WorkingSetOutSerializer(serializers.Serializer[Any]):
    session = serializers.CharField()
    turn = serializers.IntegerField()
    eviction_threshold = serializers.FloatField()
    baseline_stability = serializers.FloatField()
    working_set_size = serializers.IntegerField()
    items = ItemOutSerializer(many=True, help_text="Present items, most recently touched first.")


class WorkingSetQuerySerializer(_StrictSerializer):
    limit = serializers.IntegerField(min_value=1, max_value=WORKING_SET_PAGE_MAX,
                                     default=WORKING_SET_PAGE)


def _valid(serializer_class: type[serializers.Serializer[Any]], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _body(change: WorkingSetChange, *fields: str) -> dict[str, Any]:
    body = {"turn": change.turn, "evicted": change.evicted,
            "working_set_size": change.working_set_size}
    for name in fields:
        value = getattr(change, name)
        body[name] = asdict(value) if name == "item" and value is not None else value
    return body


def _owner(request: Request) -> User:
    """The session's owner: the agent's user, or the operator (scope_required let it in)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user


class _WorkingSetView(APIView):
    permission_classes = [scope_required("working-set")]

    def _apply(self, call: Any, **kwargs: Any) -> WorkingSetChange:
        change: WorkingSetChange = call(owner=_owner(self.request), **kwargs)
        return change


class WorkingSetView(_WorkingSetView):
    @extend_schema(
        operation_id="working_set_read", summary="What the session's working set holds now",
        parameters=[SESSION_PARAMETER, WorkingSetQuerySerializer],
        responses={200: WorkingSetOutSerializer, **error_responses(400, 401, 403, 404, 429)},
    )
    def get(self, request: Request, session_id: str) -> Response:
        query = _valid(WorkingSetQuerySerializer, request.query_params.dict())
        view = working_set_view(owner=_owner(request), key=session_id, limit=query["limit"])
        if view is None:
            raise SessionNotFound()
        return Response(asdict(view))


class WorkingSetRegisterView(_WorkingSetView):
    @extend_schema(
        operation_id="working_set_register",
        summary="Register an item at a turn (creates the session's working set if needed)",
        parameters=[SESSION_PARAMETER], request=RegisterInSerializer,
        responses={201: RegisterOutSerializer, 200: RegisterOutSerializer,
                   **error_responses(400, 401, 403, 404, 429)},
    )
    def post(self, request: Request, session_id: str) -> Response:
        data = _valid(RegisterInSerializer, request.data)
        change = self._apply(working_item_register, key=session_id, **data)
        return Response(_body(change, "created", "item"), status=201 if change.created else 200)


class WorkingSetRecallView(_WorkingSetView):
    @extend_schema(
        operation_id="working_set_recall",
        summary="Use an item again at a turn: its stability grows; false if it is gone",
        parameters=[SESSION_PARAMETER], request=RecallInSerializer,
        responses={200: RecallOutSerializer, **error_responses(400, 401, 403, 404, 429)},
    )
    def post(self, request: Request, session_id: str) -> Response:
        data = _valid(RecallInSerializer, request.data)
        change = self._apply(working_item_recall, key=session_id, **data)
        return Response(_body(change, "recalled", "item"))


class WorkingSetStepView(_WorkingSetView):
    @extend_schema(
        operation_id="working_set_step",
        summary="Advance the session to a turn; returns what was evicted",
        parameters=[SESSION_PARAMETER], request=StepInSerializer,
        responses={200: StepOutSerializer, **error_responses(400, 401, 403, 404, 429)},
    )
    def post(self, request: Request, session_id: str) -> Response:
        data = _valid(StepInSerializer, request.data)
        return Response(_body(self._apply(working_set_step, key=session_id, **data)))
