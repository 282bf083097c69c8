"""A refusal as an HTTP answer, in one place.

The commands (``tournaments.commands``, ``appeals.services``, the format homes'
services ...) raise ``rulesets.errors.Refused``; its ``code`` names the kind
and ``STATUS`` the HTTP status. The REST API's exception handler
(``REST_FRAMEWORK["EXCEPTION_HANDLER"]``) answers any ``Refused`` with the
documented bodies:

- ``invalid`` (400) and ``conflict`` (409): ``{"errors": [{"path": ..., "message": ...}]}``
  plus the refusal's ``extra`` (a conflict's current ``version``, ``updated_by``, ``updated_at``);
- ``forbidden`` (403) and ``not_found`` (404): ``{"detail": ...}``, the shape of
  Django REST framework's own 403 and 404.

Every other exception goes to Django REST framework's handler. The result
entry pages take their status from ``STATUS`` too.
"""

from __future__ import annotations

from typing import Any

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from rulesets.errors import Refused

STATUS = {"invalid": 400, "forbidden": 403, "not_found": 404, "conflict": 409}
DETAIL_CODES = {"forbidden", "not_found"}


def status_of(refused: Refused) -> int:
    return STATUS.get(refused.code, 400)


def body_of(refused: Refused) -> dict[str, Any]:
    """The JSON body of a refusal (see the module's docstring)."""
    if refused.code in DETAIL_CODES:
        return {"detail": refused.message}
    body: dict[str, Any] = {"errors": [{"path": p.path, "message": p.message} for p in refused.located()]}
    body.update(refused.extra)
    return body


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """``Refused`` -> its status and body; anything else as Django REST framework answers it."""
    if isinstance(exc, Refused):
        set_rollback()
        return Response(body_of(exc), status=status_of(exc))
    return drf_exception_handler(exc, context)
