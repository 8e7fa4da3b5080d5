"""POST /api/observations/: an Observation (docs/observations.md) posted by an agent or an outside
analyzer. GET /api/profile/?counterpart=: the speech-act distribution of interactions."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory.api.events import request_source
from memory.api.parsers import OrjsonParser
from memory.api.permissions import scope_required
from memory.api.schema import error_responses
from memory.limits import (
    OBSERVATION_DEDUP_KEY_CHARS,
    OBSERVATION_EVENT_IDS,
    OBSERVATION_TOPIC_CHARS,
    PROFILE_NAME_CHARS,
    ULID_CHARS,
)
from memory.models.taxonomy import Valence
from memory.observation_schemas import ACTS
from memory.selectors.observations import interaction_profile
from memory.services.observations import observation_submit_posted


class ActorSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(required=False, help_text="A name (or give a key).")
    key = serializers.CharField(required=False, help_text="An entity key, e.g. world:person:anya")
    role = serializers.CharField(help_text="Its role in the observation, e.g. author, speaker.")


class ObservationInSerializer(serializers.Serializer[Any]):
    """Documentation of the input; the service checks it (and the category's schema)."""

    category = serializers.CharField(help_text="A registered category: instruction, correction, "
                                     "tool_error, permission_request, preference, fact, "
                                     "interaction, commit, project_activity, ...")
    timestamp = serializers.DateTimeField(help_text="When what it observes happened (ISO 8601 "
                                          "with an offset).")
    target_namespace = serializers.CharField(help_text="e.g. agent:claude-code:rc")
    payload_typed = serializers.DictField(help_text="Checked against the category's schema.")
    topic = serializers.CharField(required=False, max_length=OBSERVATION_TOPIC_CHARS)
    actors = ActorSerializer(many=True, required=False)
    sentiment = serializers.ChoiceField(Valence.choices, required=False)
    sentiment_score = serializers.FloatField(required=False, min_value=-1, max_value=1)
    correlation = serializers.DictField(child=serializers.CharField(allow_blank=True),
                                        required=False, help_text="{session, thread, parent}")
    event_ids = serializers.ListField(child=serializers.CharField(max_length=ULID_CHARS),
                                      required=False, max_length=OBSERVATION_EVENT_IDS,
                                      help_text="The stored events it comes from (provenance).")
    dedup_key = serializers.CharField(
        required=False, max_length=OBSERVATION_DEDUP_KEY_CHARS,
        help_text="What makes two of your observations the same; default: the whole content.")


class ObservationOutSerializer(serializers.Serializer[Any]):
    id = serializers.CharField()
    created = serializers.BooleanField(help_text="False: the same observation was already stored.")
    status = serializers.CharField()


class ObservationsView(APIView):
    permission_classes = [scope_required("observations:write")]
    parser_classes = [OrjsonParser]

    @extend_schema(
        operation_id="observations_submit",
        summary="Submit one observation (idempotent on its dedup key)",
        request=ObservationInSerializer,
        responses={201: ObservationOutSerializer, 200: ObservationOutSerializer,
                   **error_responses(400, 401, 403, 413, 429)},
    )
    def post(self, request: Request) -> Response:
        result = observation_submit_posted(source=request_source(request), body=request.data)
        return Response(asdict(result), status=201 if result.created else 200)


class ProfileQuerySerializer(serializers.Serializer[Any]):
    counterpart = serializers.CharField(max_length=PROFILE_NAME_CHARS, help_text=(
        "Whom the messages are addressed to: an agent (claude-code) or a person."))
    speaker = serializers.CharField(required=False, max_length=PROFILE_NAME_CHARS,
                                    help_text="Only the messages of this speaker.")


class ProfileSerializer(serializers.Serializer[Any]):
    counterpart = serializers.CharField()
    speaker = serializers.CharField(allow_null=True)
    total = serializers.IntegerField()
    acts = serializers.DictField(child=serializers.IntegerField(),
                                 help_text=f"Count per act: {', '.join(ACTS)}.")
    shares = serializers.DictField(child=serializers.FloatField())
    dominant = serializers.CharField(allow_null=True)
    sentiments = serializers.DictField(child=serializers.IntegerField())


class ProfileView(APIView):
    permission_classes = [scope_required("recall:read")]

    @extend_schema(
        operation_id="interaction_profile",
        summary="The speech-act distribution of the interactions with a counterpart",
        parameters=[ProfileQuerySerializer],
        responses={200: ProfileSerializer, **error_responses(400, 401, 403, 429)},
    )
    def get(self, request: Request) -> Response:
        query = ProfileQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        profile = interaction_profile(counterpart=query.validated_data["counterpart"],
                                      speaker=query.validated_data.get("speaker"))
        return Response(asdict(profile))
