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

Django REST framework's own 400s take the documented shape too: malformed
JSON (``ParseError``) and a refused filter or parameter (``ValidationError``)
become ``{"errors": [...]}`` with the parameter or field as the path. Every
other exception (403, 404, 405, 406, 415, 429 ...) is answered as Django REST
framework answers it, ``{"detail": ...}``, except that a write with no credentials (refused by a permission
class or by a command's own check) or with a refused token (unknown, revoked, expired) is 401 with ``WWW-Authenticate: Token`` and a detail saying how to
authenticate. Errors are JSON whatever the view
renders on success (a CSV table, an iCalendar feed).

``not_found`` is the site's 404 handler (``config.urls.handler404``): a path
under ``/api/`` that matches no route (``/api/v1/tournaments/a.b/``) gets the
API's JSON 404, every other path Django's page. The result entry pages take
their status from ``STATUS`` too.

The database not answering (``tournaments.faults.database_unavailable``: refused, lost, starting up ...) is
503 with ``Retry-After`` (``DATABASE_RETRY_AFTER`` seconds): ``{"detail": ...}`` from the API, the page
``templates/503.html`` in the reader's language everywhere else (``server_error``, the site's 500 handler,
``config.urls.handler500``, which also keeps every other 500 under ``/api/`` JSON). Each such failure is one
line of the log, without a traceback (``config.logs``).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import defaults
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated, ParseError, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from rulesets.errors import Refused
from tournaments.faults import database_named, database_unavailable, reason_of
from tournaments.messages import problem_row, render

log = logging.getLogger(__name__)

STATUS = {"invalid": 400, "forbidden": 403, "not_found": 404, "conflict": 409}
DETAIL_CODES = {"forbidden", "not_found"}


def status_of(refused: Refused) -> int:
    return STATUS.get(refused.code, 400)


def body_of(refused: Refused) -> dict[str, Any]:
    """The JSON body of a refusal (see the module's docstring)."""
    if refused.code in DETAIL_CODES:
        return {"detail": render(refused.message)}
    body: dict[str, Any] = {"errors": [problem_row(p) for p in refused.located()]}
    body.update(refused.extra)
    return body


def validation_problems(detail: Any, path: str = "") -> list[dict[str, str]]:
    """Django REST framework's error detail (nested dicts and lists) as ``{"path", "message"}`` rows."""
    if isinstance(detail, dict):
        return [row for key, value in detail.items()
                for row in validation_problems(value, f"{path}.{key}" if path and key != "non_field_errors"
                                               else ("" if key == "non_field_errors" else str(key)))]
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return [{"path": path, "message": str(item)} for item in detail]
        return [row for index, item in enumerate(detail) for row in validation_problems(item, f"{path}[{index}]")]
    return [{"path": path, "message": str(detail)}]


def exception_handler(exc: Exception, context: dict) -> HttpResponse | None:
    """``Refused`` -> its status and body; a ``ParseError`` or ``ValidationError`` -> ``{"errors": ...}``;
    anything else as Django REST framework answers it. Always JSON."""
    if database_unavailable(exc):
        return database_unavailable_answer(context["request"], exc)
    if isinstance(exc, Refused):
        set_rollback()
        if exc.code == "forbidden" and _anonymous(context):
            return not_logged_in(render(exc.message))
        return as_json(Response(body_of(exc), status=status_of(exc)))
    if isinstance(exc, ParseError):
        set_rollback()
        return as_json(Response({"errors": [{"path": "", "message": str(exc.detail)}]}, status=exc.status_code))
    if isinstance(exc, ValidationError):
        set_rollback()
        rows = validation_problems(exc.detail) or [{"path": "", "message": _("invalid input")}]
        return as_json(Response({"errors": rows}, status=exc.status_code))
    if isinstance(exc, (NotAuthenticated, AuthenticationFailed)):
        set_rollback()
        return not_logged_in(str(exc.detail))
    return as_json(drf_exception_handler(exc, context))


def _anonymous(context: dict) -> bool:
    """The request the refusal answers came with no credentials (a refusal raised outside a request is not)."""
    user = getattr(context.get("request"), "user", None)
    return user is not None and not user.is_authenticated


def how_to_authenticate() -> str:
    return _("Send `Authorization: Token <token>`; create a token on /accounts/profile/tokens/.")


def not_logged_in(detail: str) -> HttpResponse:
    """No credentials, or a token that is unknown, revoked or expired, whichever check found it: 401 with
    ``WWW-Authenticate: Token`` and a detail that says how to authenticate. (Django REST framework would answer
    403, the session being the first authentication class and having no challenge of its own.)"""
    return as_json(Response({"detail": f"{detail} {how_to_authenticate()}"}, status=401,
                            headers={"WWW-Authenticate": "Token"}))


def as_json(response: Response | None) -> HttpResponse | None:
    """The error body as JSON, with the headers Django REST framework set (``Allow``, ``Retry-After`` ...)."""
    if response is None:
        return None
    answer = JsonResponse(response.data, status=response.status_code, safe=False,
                          json_dumps_params={"ensure_ascii": False, "separators": (",", ":")})
    answer.data = response.data  # as a DRF response carries it, for the callers that read the body
    for name, value in response.items():
        if name.lower() != "content-type":
            answer[name] = value
    return answer


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """The site's 404: JSON ``{"detail": ...}`` under ``/api/``, Django's page everywhere else."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": _("No such endpoint: %(path)s (the endpoints are listed at /api/v1/).")
                             % {"path": request.path}}, status=404, json_dumps_params={"ensure_ascii": False})
    return defaults.page_not_found(request, exception)


def retry_after() -> int:
    return int(getattr(settings, "DATABASE_RETRY_AFTER", 30))


def log_unavailable(request: HttpRequest, exc: BaseException) -> None:
    """The one log line of a request the database did not answer (no traceback: nothing in the code failed)."""
    log.error("the database did not answer %s %r: %s (%s)", request.method, request.path, reason_of(exc),
              database_named())


def database_unavailable_answer(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """503 with ``Retry-After`` (the API's exception handler): logged here, once."""
    log_unavailable(request, exc)
    response = unavailable_response(request)
    response._has_been_logged = True  # Django's own "Service Unavailable" line would be a second one
    return response


def unavailable_response(request: HttpRequest) -> HttpResponse:
    """503 with ``Retry-After``: ``{"detail": ...}`` under ``/api/``, the 503 page elsewhere."""
    seconds = retry_after()
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {"detail": _("The portal's database does not answer just now; nothing was changed. Try again in "
                         "%(seconds)d seconds.") % {"seconds": seconds}},
            status=503, json_dumps_params={"ensure_ascii": False})
    else:
        response = unavailable_page(request, seconds)
    response["Retry-After"] = str(seconds)
    response["Cache-Control"] = "no-store"
    return response


def unavailable_page(request: HttpRequest, seconds: int) -> HttpResponse:
    """``templates/503.html`` in the reader's language; nothing on it reads the database (no user, no session)."""
    with translation.override(translation.get_language_from_request(request)):
        body = render_to_string("503.html", {"retry_after": seconds, "user": AnonymousUser()}, request=request)
    return HttpResponse(body, status=503)


def server_error(request: HttpRequest) -> HttpResponse:
    """The site's 500 handler (``config.urls.handler500``): 503 while the database does not answer (Django logs
    it; ``config.logs`` makes that one line without the traceback), JSON under ``/api/`` (never an HTML page),
    the project's 500 page elsewhere."""
    if database_unavailable(sys.exc_info()[1]):
        return unavailable_response(request)
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": _("Server error: the request failed on the portal's side. It is logged; "
                                         "try again later.")}, status=500, json_dumps_params={"ensure_ascii": False})
    return defaults.server_error(request)
