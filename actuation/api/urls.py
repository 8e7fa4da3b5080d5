from django.urls import path

from actuation.api import views

urlpatterns = [
    path("", views.ProposalsView.as_view(), name="proposals"),
    path("<int:proposal_id>/approve/", views.ProposalApproveView.as_view(),
         name="proposal-approve"),
    path("<int:proposal_id>/reject/", views.ProposalRejectView.as_view(),
         name="proposal-reject"),
]
