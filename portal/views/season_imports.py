"""A season from the organizers' files: the pages of the roster, game-log batch and penalty imports.

Each page is a form (a file uploaded, or its text pasted), a preview ("Preview": what the import would do,
nothing saved) and the import itself ("Import"), both through ``tournaments.sources`` (``roster_import``,
``log_batch``, ``penalty_import``) and so through ``tournaments.commands``, as the management commands and the
API: validated, audited, recomputed once. The preview page carries what was read (the text, the logs) in the
form, so that "Import" saves exactly what was previewed. Refusals are shown in words (``portal.paths``,
``tournaments.messages``), each naming its line. Who may: the organizers for rosters, those who enter results
for the game logs, the judges and the curator for penalties (``spec/roles.md``); anyone else gets the styled 403.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Role
from accounts.permissions import can_enter_results, enters_some_results, has_role, result_entry_refusal, result_stages
from formats.registry import Link
from portal import hooks
from portal.forms import LogBatchForm, PenaltyFileForm, RosterFileForm
from portal.paths import path_words
from rulesets import facts as F
from rulesets.errors import NotAllowed, Problem, Refused
from tournaments.messages import render as message_text
from tournaments.models import Stage, Team, Tournament, TournamentFamily
from tournaments.sources.files import as_text, too_large
from tournaments.sources.log_batch import LOG_SUFFIXES, BatchEntry, LogFile, import_log_batch, read_log_batch
from tournaments.sources.penalty_import import import_penalties, read_penalties
from tournaments.sources.roster_import import import_rosters, read_rosters


def import_links(tournament: Tournament, user) -> list[Link]:
    """The import pages ``user`` may open, for the organizer's dashboard."""
    links = [Link(_("Import rosters from a file"), reverse("import-rosters", args=[tournament.slug]),
                  allowed=lambda reader: has_role(reader, tournament, Role.ORGANIZER))]
    if rulesets.get(tournament.ruleset).rounds == "games":
        links.append(Link(_("Import game logs in a batch"), reverse("import-game-logs", args=[tournament.slug]),
                          allowed=lambda reader: enters_some_results(reader, tournament)))
        links.append(Link(_("Import penalties from a file"), reverse("import-penalties", args=[tournament.slug]),
                          allowed=lambda reader: has_role(reader, tournament, Role.JUDGE, Role.CURATOR)))
    return [link for link in links if link.shown_to(user)]


def _forbidden(request: HttpRequest, text: str) -> HttpResponse:
    return render(request, "accounts/forbidden.html", {"text": text}, status=403)


def _in_words(problems: list[Problem], facts: F.TournamentFacts | None = None,
              prefix: str = "") -> list[dict[str, str]]:
    """Problems as the page lists them: where in words (``portal.paths``; a file's line is in the message), and
    the message in the reader's language."""
    return [{"where": path_words(f"{prefix}{p.path}" if p.path else "", facts), "message": message_text(p.message)}
            for p in problems]


def _entry_words(tournament: Tournament, stage: Stage, entry: BatchEntry) -> list[dict[str, str]]:
    """A log's problems, a seat's by its number and nick ("game 4, seat 9 (wasp): team")."""
    if entry.number is None or not entry.seats:
        return _in_words(entry.problems)
    game = F.Game(number=entry.number, seats=tuple(F.Seat(player=nick, team="", role="civilian")
                                                   for nick in entry.seats))
    facts = F.TournamentFacts(slug=tournament.slug, name=tournament.name, ruleset=tournament.ruleset,
                              stages=(F.Stage(key=stage.key, games=(game,)),))
    return [{"where": path_words(f"stages[0].games[0].{p.path}", facts) if p.path.startswith("seats[") else (
        path_words(p.path, None)), "message": message_text(p.message)} for p in entry.problems]


def _read_upload(upload, field: str) -> tuple[str, list[Problem]]:
    problem = too_large(upload.size)
    if problem is not None:
        return "", [Problem(field, problem.message)]
    return as_text(upload.read()), []


def _file_or_text(form, file_field: str, text_field: str, *, required: bool = True) -> tuple[str, str, list[Problem]]:
    """The uploaded file's text (and its name), else the pasted text; the form's own refusals."""
    if not form.is_valid():
        return "", "", [Problem(name, str(message)) for name, messages in form.errors.items() for message in messages]
    upload = form.cleaned_data.get(file_field)
    if upload is not None:
        text, problems = _read_upload(upload, file_field)
        return text, upload.name, problems
    text = form.cleaned_data.get(text_field) or ""
    problem = too_large(len(text.encode("utf-8")))
    if problem is not None:
        return "", "", [Problem(text_field, problem.message)]
    if required and not text.strip():
        return "", "", [Problem(text_field, _("choose the file or paste its text"))]
    return text, "", []


def _lines_of(raw: str) -> list[str]:
    return [name.strip() for name in (raw or "").split(",") if name.strip()]


def _pairs_of(raw: str) -> tuple[dict[str, str], list[Problem]]:
    """``Этап1=qualifying, Этап2=final``: each line of the stage list and the stage it goes into."""
    out: dict[str, str] = {}
    for pair in (p for p in (raw or "").split(",") if p.strip()):
        name, sep, stage = pair.rpartition("=")
        if not sep or not name.strip() or not stage.strip():
            return {}, [Problem("lines", _("write each line of the list with its stage: Этап1=qualifying, not "
                                           "%(text)r") % {"text": pair.strip()})]
        out[name.strip()] = stage.strip()
    return out, []


# --- 1. rosters ---


def _families_by_default(tournament: Tournament) -> bool:
    """The clans are families where the tournament's teams already are (a family league that has them)."""
    return (TournamentFamily.objects.filter(tournament=tournament).exists()
            or Team.objects.filter(tournament=tournament, family__isnull=False).exists())


@login_required
def rosters_view(request: HttpRequest, slug: str) -> HttpResponse:
    """``/t/<slug>/import/rosters/``: a roster file into the tournament's teams or families."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not has_role(request.user, tournament, Role.ORGANIZER):
        return _forbidden(request, _("Only the organizers of %(tournament)s import its rosters.") % {
            "tournament": tournament.name})
    fields: dict[str, Any] = {"text": "", "format": "auto", "families": _families_by_default(tournament)}
    context: dict[str, Any] = {"tournament": tournament, "fields": fields, "plan": None, "problems": [],
                               "done": False}
    status = 200
    if request.method == "POST":
        form = RosterFileForm(request.POST, request.FILES)
        text, name, problems = _file_or_text(form, "file", "text")
        if not problems:
            kind = form.cleaned_data.get("format") or "auto"
            families = bool(form.cleaned_data.get("families"))
            fields.update(text=text, format=kind, families=families)
            plan = None
            if form.importing():
                try:
                    plan = import_rosters(request.user, tournament, text, kind=kind, name=name, families=families)
                    context["done"] = True
                except NotAllowed as refused:
                    return _forbidden(request, message_text(refused.message))
                except Refused as refused:
                    problems = refused.located()
            if plan is None:
                plan = read_rosters(tournament, text, kind=kind, name=name, families=families)
                problems = problems or plan.problems
            context["plan"] = plan
        context["problems"] = _in_words(problems)
        status = 400 if problems else 200
    return render(request, "tournaments/import_rosters.html", context, status=status)


# --- 2. game logs in a batch ---


def _batch_files(form: LogBatchForm) -> tuple[list[LogFile], list[Problem]]:
    """The logs uploaded (files, a folder's ``.html``), else those the preview carried."""
    files: list[LogFile] = []
    problems: list[Problem] = []
    uploads = list(form.cleaned_data.get("logs") or [])
    uploads += [u for u in form.cleaned_data.get("folder") or [] if u.name.lower().endswith(LOG_SUFFIXES)]
    for upload in uploads:
        text, refused = _read_upload(upload, "logs")
        files.append(LogFile(upload.name.rsplit("/", 1)[-1], text, refused[0] if refused else None))
    if not files:
        files = [LogFile(name, text) for name, text in form.carried()]
    return files, problems


@login_required
def game_logs_view(request: HttpRequest, slug: str) -> HttpResponse:
    """``/t/<slug>/import/games/``: many game logs into a stage, placed by a stage list."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not enters_some_results(request.user, tournament):
        return _forbidden(request, result_entry_refusal())
    if rulesets.get(tournament.ruleset).rounds != "games":
        raise Http404("this tournament plays tours, not games")
    form = LogBatchForm(request.POST, request.FILES) if request.method == "POST" else None
    if form is not None:  # the stage's results: its judges', the curator's, the organizers' (roles.md)
        chosen = form["stage"].value() or None
        if not can_enter_results(request.user, tournament, chosen):
            return _forbidden(request, result_entry_refusal(chosen))
    # the stages whose results the user enters (a judge's role may name some)
    stages = result_stages(request.user, tournament, Stage.objects.filter(tournament=tournament).order_by(
        "order", "pk"))
    fields: dict[str, Any] = {"stage": stages[0].key if stages else "", "stage_list": "", "lines": ""}
    context: dict[str, Any] = {"tournament": tournament, "stages": stages, "fields": fields, "batch": None,
                               "carried": [], "problems": [], "done": False}
    status = 200
    if form is not None:
        stage_list, _name, problems = _file_or_text(form, "stage_list_file", "stage_list", required=False)
        files: list[LogFile] = []
        if not problems:
            fields.update(stage=form.cleaned_data["stage"], stage_list=stage_list, lines=form.cleaned_data["lines"])
            stage = next((s for s in stages if s.key == form.cleaned_data["stage"]), None)
            files, problems = _batch_files(form)
            if stage is None:
                problems.append(Problem("stage", _("choose a stage of the tournament")))
        if not problems:
            lines = _lines_of(form.cleaned_data["lines"])
            batch = None
            if form.importing():
                try:
                    batch = import_log_batch(request.user, tournament, stage, files, stage_list=stage_list or None,
                                             lines=lines, game_problems=hooks.game_problems)
                    context["done"] = True
                except NotAllowed as refused:
                    return _forbidden(request, message_text(refused.message))
                except Refused as refused:
                    problems = refused.located()
            if batch is None:
                batch = read_log_batch(tournament, stage, files, stage_list=stage_list or None, lines=lines)
                problems = problems or batch.problems
                context["carried"] = [f for f in files if f.problem is None]
            context["batch"] = batch
            context["entries"] = [{"entry": e, "problems": _entry_words(tournament, stage, e)} for e in batch.entries]
        context["problems"] = _in_words(problems)
        status = 400 if problems else 200
    return render(request, "tournaments/import_game_logs.html", context, status=status)


# --- 3. penalties ---


@login_required
def penalties_view(request: HttpRequest, slug: str) -> HttpResponse:
    """``/t/<slug>/import/penalties/``: a penalty file, the judges' and the curator's (FL-0)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not has_role(request.user, tournament, Role.JUDGE, Role.CURATOR):
        return _forbidden(request, _("Only the judges and the curator of %(tournament)s record its penalties "
                                     "(FL-0); its organizers do not.") % {"tournament": tournament.name})
    if rulesets.get(tournament.ruleset).rounds != "games":
        raise Http404("this tournament plays tours, not games")
    fields: dict[str, Any] = {"text": "", "stage_list": "", "lines": ""}
    context: dict[str, Any] = {"tournament": tournament, "fields": fields, "plan": None, "problems": [],
                               "done": False}
    status = 200
    if request.method == "POST":
        form = PenaltyFileForm(request.POST, request.FILES)
        text, _name, problems = _file_or_text(form, "file", "text")
        stage_list = ""
        if not problems:
            stage_list, _list_name, problems = _file_or_text(form, "stage_list_file", "stage_list", required=False)
        lines: dict[str, str] = {}
        if not problems:
            lines, problems = _pairs_of(form.cleaned_data["lines"])
            fields.update(text=text, stage_list=stage_list, lines=form.cleaned_data["lines"])
        if not problems:
            plan = None
            if form.importing():
                try:
                    plan = import_penalties(request.user, tournament, text, stage_list=stage_list or None,
                                            lines=lines, game_problems=hooks.game_problems)
                    context["done"] = True
                except NotAllowed as refused:
                    return _forbidden(request, message_text(refused.message))
                except Refused as refused:
                    problems = refused.located()
            if plan is None:
                plan = read_penalties(tournament, text, stage_list=stage_list or None, lines=lines,
                                      user=request.user)
                problems = problems or plan.problems
            context["plan"] = plan
        context["problems"] = _in_words(problems)
        status = 400 if problems else 200
    return render(request, "tournaments/import_penalties.html", context, status=status)
