"""The approval queue over REST, for operators: `GET /api/proposals/`,
`POST /api/proposals/<id>/approve/`, `POST /api/proposals/<id>/reject/`."""
