from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from actuation.api.serializers import (
    ApproveSerializer,
    ProposalQuerySerializer,
    ProposalSerializer,
    RejectSerializer,
)
from actuation.models import Proposal
from actuation.selectors.proposals import proposal_list
from actuation.services.proposals import proposal_approve, proposal_reject
from memory.api.parsers import OrjsonParser
from memory.api.permissions import IsOperator
from memory.api.schema import error_responses


class ProposalsView(ListAPIView[Proposal]):
    permission_classes = [IsOperator]
    serializer_class = ProposalSerializer

    def get_queryset(self) -> QuerySet[Proposal]:
        query = ProposalQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return proposal_list(**query.validated_data)

    @extend_schema(operation_id="proposals_list", summary="The approval queue (operator)",
                   parameters=[ProposalQuerySerializer],
                   responses={200: ProposalSerializer(many=True),
                              **error_responses(400, 401, 403)})
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


class ProposalApproveView(APIView):
    # JSON only: a form body of thousands of fields was Django's HTML 400, not the API's.
    parser_classes = [OrjsonParser]
    permission_classes = [IsOperator]

    @extend_schema(operation_id="proposal_approve",
                   summary="Approve a proposal, without the items named in `drop` (operator)",
                   request=ApproveSerializer,
                   responses={200: ProposalSerializer,
                              **error_responses(400, 401, 403, 404, 409)})
    def post(self, request: Request, proposal_id: int) -> Response:
        body = ApproveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        proposal = proposal_approve(proposal_id=proposal_id, by=request.user.get_username(),
                                    drop=body.validated_data.get("drop") or ())
        return Response(ProposalSerializer(proposal).data)


class ProposalRejectView(APIView):
    # JSON only: a form body of thousands of fields was Django's HTML 400, not the API's.
    parser_classes = [OrjsonParser]
    permission_classes = [IsOperator]

    @extend_schema(operation_id="proposal_reject", summary="Reject a proposal, with a reason",
                   request=RejectSerializer, responses={200: ProposalSerializer,
                                                        **error_responses(400, 401, 403, 404,
                                                                          409)})
    def post(self, request: Request, proposal_id: int) -> Response:
        body = RejectSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        proposal = proposal_reject(proposal_id=proposal_id, by=request.user.get_username(),
                                   reason=body.validated_data["reason"])
        return Response(ProposalSerializer(proposal).data)
