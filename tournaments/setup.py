"""Creating a tournament from the portal: the one command the page and the API call.

``create_tournament(user, name=..., slug=..., ruleset=..., ...)`` judges what it is given and, only when nothing
is wrong, writes in one transaction: the tournament (its ruleset's complete settings, every default filled in,
and the ruleset's version and rule constants frozen: design principle 8), the creator's ``organizer`` role of
it, and one audit entry ``create`` naming both (``tournaments.audit.record``; the row signals are muted so the
creation is one entry, not three). A refusal is a ``rulesets.errors`` one: ``NotAllowed`` when the user may
not create, ``Invalid`` with a path per field otherwise (``name``, ``slug``, ``ruleset``, ``timezone``,
``starts_on``, ``ends_on``, ``registration_deadline``, ``room``, ``settings.<key>``), and nothing is written.

The tournament's own facts and its settings are judged exactly as an imported document's ``tournament`` object
is (``rulesets.interchange.parse_document`` on a document holding only it: the slug's characters, the name, the
ruleset's key, the time zone, the settings' bounds and the ruleset's own ``validate_settings``); this module adds
only what an import does not have: the page's URL rules for the slug, the dates' order, the room's length.

Who may create (``spec/roles.md``: the organizer "creates the tournament"; staff may do everything): site staff,
and any active user who already holds the organizer role of at least one tournament. The portal's organizers
are people staff know: staff creates an organizer's first tournament (or grants the role), and from then on the
organizer creates the next season's himself; an account registered a minute ago cannot put tournaments on the
public home page. The creator becomes the new tournament's organizer, and nothing more.

Settings a ruleset keeps although the tournament has a field for them (the family league's FL-0 ``room``,
``ends_on``, ``registration_deadline``, kept for documents whose ``tournament`` object has no place for them) are
not asked for separately: ``TOURNAMENT_FIELDS`` says which, and they keep their defaults.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Role, TournamentRole
from rulesets.base import Problem, RulesetError
from rulesets.errors import Invalid, NotAllowed
from rulesets.interchange import FORMAT, parse_document
from tournaments import audit
from tournaments.changes import mark_changed
from tournaments.models import Tournament

RESERVED_SLUGS = frozenset({"new"})  # /accounts/dashboard/new/ and /api/v1/tournaments/new/ are this page's
SLUG_RE = re.compile(r"^[-a-zA-Z0-9_]+$")  # what the pages' <slug:slug> URLs take
MAX_SLUG = 100
MAX_ROOM = 200
TOURNAMENT_FIELDS = frozenset({"room", "ends_on", "registration_deadline"})  # settings the tournament has as fields
DEFAULT_ZONE = "Europe/Moscow"


def may_create_tournament(user: Any) -> bool:
    """Staff, or an active user who organizes at least one tournament (the module's docstring says why)."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_staff:
        return True
    return TournamentRole.objects.filter(user=user, role=Role.ORGANIZER).exists()


def require_creator(user: Any) -> None:
    """``NotAllowed`` naming the rule unless ``user`` may create a tournament."""
    if not may_create_tournament(user):
        raise NotAllowed(_("Only staff and the organizers of a tournament may create a tournament (roles: the "
                           "organizer creates the tournament); ask staff to create your first one."))


def form_settings(ruleset_key: str) -> dict[str, Any]:
    """The ruleset's settings the creation form asks for, with their defaults (``TOURNAMENT_FIELDS`` left out)."""
    defaults = rulesets.get(ruleset_key).default_settings
    return {key: value for key, value in defaults.items() if key not in TOURNAMENT_FIELDS}


def suggest_slug(name: str) -> str:
    """A slug for the pages' URLs from a tournament's name (Cyrillic transliterated), not yet taken."""
    base = slugify(_transliterate(name))[:MAX_SLUG - 4].strip("-") or "tournament"
    if base in RESERVED_SLUGS:
        base = f"{base}-1"
    taken = set(Tournament.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}-{number}", number + 1
    return candidate


_CYRILLIC = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
                     ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o", "p", "r", "s",
                      "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e", "yu", "ya"], strict=True))


def _transliterate(text: str) -> str:
    out = []
    for char in text:
        lower = char.lower()
        out.append(_CYRILLIC.get(lower, char))
    return unicodedata.normalize("NFKD", "".join(out))


def check_tournament(*, name: str, slug: str, ruleset: str, timezone: str = DEFAULT_ZONE,
                     starts_on: dt.date | None = None, ends_on: dt.date | None = None,
                     registration_deadline: dt.datetime | None = None, room: str = "",
                     settings: Mapping[str, Any] | None = None) -> tuple[list[Problem], dict[str, Any]]:
    """The problems of a tournament to create, and its complete settings (defaults filled in) when there are none.

    Paths: the field's name, ``settings.<key>[...]`` for a setting. The slug is checked as the pages' URLs take it;
    its being taken is checked again in ``create_tournament``'s transaction."""
    problems: list[Problem] = []
    if not isinstance(slug, str) or not SLUG_RE.match(slug) or len(slug) > MAX_SLUG:
        problems.append(Problem("slug", _("a slug holds only Latin letters, digits, '-' and '_' (at most "
                                          "%(limit)s)") % {"limit": MAX_SLUG}))
    elif slug in RESERVED_SLUGS:
        problems.append(Problem("slug", _("%(slug)s is reserved by the portal's pages; choose another slug")
                                % {"slug": repr(slug)}))
    elif Tournament.objects.filter(slug=slug).exists():
        problems.append(_slug_taken(slug))
    if isinstance(name, str) and not name.strip():
        problems.append(Problem("name", _("a tournament needs a name")))
    if starts_on is not None and ends_on is not None and ends_on < starts_on:
        problems.append(Problem("ends_on", _("the tournament ends before it starts (%(starts_on)s)")
                                % {"starts_on": starts_on.isoformat()}))
    if registration_deadline is not None and registration_deadline.tzinfo is None:
        problems.append(Problem("registration_deadline", _("a moment needs its time zone")))
    if not isinstance(room, str) or len(room) > MAX_ROOM:
        problems.append(Problem("room", _("a text of at most %(limit)s characters") % {"limit": MAX_ROOM}))
    given = dict(settings or {}) if isinstance(settings, Mapping) else settings
    document = {"format": FORMAT, "tournament": {
        "slug": slug, "name": name, "ruleset": ruleset, "timezone": timezone, "settings": given,
        **({"starts_on": starts_on.isoformat()} if isinstance(starts_on, dt.date) else {})}}
    try:
        facts = parse_document(document)
    except RulesetError as refused:
        known = {p.path for p in problems}
        problems += [p for p in (_from_document(p) for p in refused.problems) if p.path not in known]
        return problems, {}
    return problems, dict(facts.settings)


def _from_document(problem: Problem) -> Problem:
    """A problem of the one-object document, with the path of the command's argument."""
    path = problem.path.removeprefix("tournament.").removeprefix("tournament")
    return Problem(path, problem.message)


def _slug_taken(slug: str) -> Problem:
    return Problem("slug", _("a tournament %(slug)s exists; choose another slug") % {"slug": repr(slug)})


def create_tournament(user: Any, *, name: str, slug: str, ruleset: str, timezone: str = DEFAULT_ZONE,
                      starts_on: dt.date | None = None, ends_on: dt.date | None = None,
                      registration_deadline: dt.datetime | None = None, room: str = "",
                      settings: Mapping[str, Any] | None = None) -> Tournament:
    """Create a tournament with ``user`` as its organizer, in one transaction; ``NotAllowed`` or ``Invalid``."""
    require_creator(user)
    problems, complete = check_tournament(name=name, slug=slug, ruleset=ruleset, timezone=timezone,
                                          starts_on=starts_on, ends_on=ends_on,
                                          registration_deadline=registration_deadline, room=room, settings=settings)
    if problems:
        raise Invalid(problems)
    try:
        with transaction.atomic():
            with audit.muted():
                tournament = Tournament.objects.create(  # save() freezes the ruleset's version and rule constants
                    slug=slug, name=name.strip(), ruleset=ruleset, settings=complete, timezone=timezone,
                    starts_on=starts_on, ends_on=ends_on, registration_deadline=registration_deadline, room=room)
                TournamentRole.objects.create(user=user, tournament=tournament, role=Role.ORGANIZER)
            audit.record("create", tournament, None, _state(tournament, user), user=user)
            mark_changed(tournament.pk, bump=False)  # its (empty) tables are computed, as after an import
    except IntegrityError as exc:  # the slug was taken between the check and the write
        raise Invalid([_slug_taken(slug)]) from exc
    return tournament


def _state(tournament: Tournament, user: Any) -> dict[str, Any]:
    """The new tournament as the history keeps it: its facts, its frozen rules, its organizer."""
    return {
        "slug": tournament.slug, "name": tournament.name, "ruleset": tournament.ruleset,
        "ruleset_version": tournament.ruleset_version, "timezone": tournament.timezone,
        "starts_on": tournament.starts_on.isoformat() if tournament.starts_on else None,
        "ends_on": tournament.ends_on.isoformat() if tournament.ends_on else None,
        "registration_deadline": (tournament.registration_deadline.astimezone(dt.UTC).isoformat()
                                  if tournament.registration_deadline else None),
        "room": tournament.room, "settings": tournament.settings, "rules": tournament.rules,
        "organizer": user.username,
    }
