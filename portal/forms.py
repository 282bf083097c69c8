"""Forms of the site-wide pages' POSTs: deciding a player claim, marking a prize paid (GP-22, GP-22a, FL-20),
entering a tour's masks or a Mafia game."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from tournaments.fact_fields import SEAT

# the game entry form's seat fields besides the player, team and role (tournaments.fact_fields): typed numbers and
# check boxes, one cell each in the order of the facts
SEAT_NUMBERS = SEAT.named(("count",))
SEAT_FLAGS = SEAT.named(("flag",))
SEAT_CELLS = tuple({"name": f.name, "header": f.mapped.header, "flag": f.kind == "flag",
                    "not_in_log": not f.mapped.in_log} for f in SEAT.cells)


def seat_form_row(value: Callable[[str], Any]) -> dict[str, Any]:
    """A seat row of the game entry form from its facts (``value(name)`` of each field): a number as its text (blank
    for none or its default), a flag as a boolean, the rest as it is."""
    row: dict[str, Any] = {}
    for field in SEAT.fields:
        given = value(field.name)
        if field.kind == "count":
            row[field.name] = "" if given is None or given == field.default else str(given)
        elif field.kind == "flag":
            row[field.name] = bool(given)
        else:
            row[field.name] = given
    return row


class ClaimDecisionForm(forms.Form):
    """An organizer's or head's decision on a pending claim: the player's id and which button was pressed."""

    player = forms.IntegerField(label=_("player"), min_value=1,
                                error_messages={"required": _("Choose a pending claim."),
                                                "invalid": _("Choose a pending claim."),
                                                "min_value": _("Choose a pending claim.")})
    decision = forms.ChoiceField(label=_("decision"), choices=[("confirm", _("Confirm")), ("refuse", _("Refuse"))],
                                 error_messages={"required": _("Confirm or refuse the claim."),
                                                 "invalid_choice": _("Confirm or refuse the claim.")})


class PrizePaidForm(forms.Form):
    """One award of the stored standings, as the prizes page posts it: the stage, the place, the team and player."""

    stage_key = forms.CharField(label=_("stage"), max_length=40, required=False, strip=False)
    place = forms.IntegerField(label=_("Place"), min_value=1,
                               error_messages={"required": _("Give the place as a whole number from 1."),
                                               "invalid": _("Give the place as a whole number from 1."),
                                               "min_value": _("Give the place as a whole number from 1.")})
    team = forms.CharField(label=_("team"), max_length=100, required=False, strip=False)
    player = forms.CharField(label=_("player"), max_length=100, required=False, strip=False)


class AdoptRulesForm(forms.Form):
    """The organizer's confirmation that the tournament is recomputed under the code's current rules (principle 8)."""

    confirm = forms.BooleanField(
        label=_("Recompute this tournament under the current rules"),
        error_messages={"required": _("Tick the box to confirm: the tables will change and the change is logged.")})


# --- result entry: the fields are read as typed; the write commands judge them ---


class _PresentCharField(forms.CharField):
    """A text field that tells a field left out of the POST (None) from one posted empty ("")."""

    def to_python(self, value: Any) -> Any:
        return None if value is None else super().to_python(value)


class _NamesField(forms.Field):
    """The values of a repeated field (``getlist``), as posted: the command judges the names."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[str]:
        if not value:
            return []
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


class TourMasksForm(forms.Form):
    """A tour's masks grid: ``mask-<team pk>`` and ``absent-<team pk>`` per team, and the ``version`` read."""

    version = forms.CharField(required=False)

    def __init__(self, *args: Any, teams: Iterable[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.teams = list(teams)
        for team in self.teams:
            self.fields[f"mask-{team.pk}"] = forms.CharField(required=False, strip=False)
            self.fields[f"absent-{team.pk}"] = forms.BooleanField(required=False)

    def clean_version(self) -> int | None:
        """The version read; one that is not a number is no version (the command asks for it)."""
        try:
            return int(self.cleaned_data["version"])
        except ValueError:
            return None


class GameForm(forms.Form):
    """A Mafia game with its seats. The seat fields ``seat-<i>-...`` are built for the ``seat_count`` rows
    posted (at most ``max_seats``); the numbers are kept as typed, for the write command to judge."""

    # a count that is not a number is refused (Django's "Enter a whole number."): reading no row would
    # replace the game's seats by none
    seat_count = forms.IntegerField(required=False)
    number = forms.CharField(required=False, strip=False)
    status = forms.CharField(required=False, strip=False)
    outcome = forms.CharField(required=False, strip=False)
    omon = forms.BooleanField(required=False)
    game_days = forms.CharField(required=False, strip=False)
    round = forms.CharField(required=False, strip=False)
    link = forms.CharField(required=False)
    group = _PresentCharField(required=False, strip=False)
    absent = _NamesField(required=False)
    version = forms.CharField(required=False, strip=False)
    accept_conflicts = forms.BooleanField(required=False)  # save despite the later games it upsets

    def __init__(self, *args: Any, max_seats: int, seat_numbers: Iterable[str], seat_flags: Iterable[str],
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seat_numbers, self.seat_flags = tuple(seat_numbers), tuple(seat_flags)
        try:
            count = int(self.data.get("seat_count") or "0")
        except (TypeError, ValueError):
            count = 0  # and the form refuses it
        self.seat_rows_count = min(max(count, 0), max_seats)
        for i in range(self.seat_rows_count):
            self.fields[f"seat-{i}-player"] = forms.CharField(required=False)
            self.fields[f"seat-{i}-team"] = forms.CharField(required=False, strip=False)
            self.fields[f"seat-{i}-role"] = forms.CharField(required=False, strip=False)
            for key in self.seat_numbers:
                self.fields[f"seat-{i}-{key}"] = forms.CharField(required=False)
            for key in self.seat_flags:
                self.fields[f"seat-{i}-{key}"] = forms.BooleanField(required=False)
            # "add the player to the roster" (a nick the portal does not know, from a game log)
            self.fields[f"seat-{i}-add"] = forms.BooleanField(required=False)
            self.fields[f"seat-{i}-add_team"] = forms.CharField(required=False, strip=False)

    def seat_rows(self) -> list[dict[str, Any]]:
        """The posted seat rows, as typed (blank rows included: the view skips those without a player)."""
        data = getattr(self, "cleaned_data", {})
        rows = []
        for i in range(self.seat_rows_count):
            row: dict[str, Any] = {key: data.get(f"seat-{i}-{key}", "") for key in ("player", "team", "role")}
            row.update({key: data.get(f"seat-{i}-{key}", "") for key in self.seat_numbers})
            row.update({key: bool(data.get(f"seat-{i}-{key}")) for key in self.seat_flags})
            row.update(add=bool(data.get(f"seat-{i}-add")), add_team=data.get(f"seat-{i}-add_team", ""))
            rows.append(row)
        return rows


class LogImportPressedForm(forms.Form):
    """Whether a POST of the game entry page pressed the import box's button (``log_import``), not "save"."""

    log_import = forms.CharField(required=False, strip=False)

    def pressed(self) -> bool:
        return self.is_valid() and bool(self.cleaned_data["log_import"])


class GameLogForm(forms.Form):
    """The entry form's "import from game log" box: the saved page, or its HTML pasted."""

    log_file = forms.FileField(required=False, label=_("Game log page"))
    log_text = forms.CharField(required=False, strip=False, widget=forms.Textarea, label=_("or paste its HTML"))


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files of one input (``multiple``; a folder with ``webkitdirectory``): a list, empty when none."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        kwargs.setdefault("required", False)
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> list:
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(item, initial) for item in data if item]
        return [single(data, initial)] if data else []


class _SeasonFileForm(forms.Form):
    """The season imports' pages: a file uploaded or its text pasted, and which button: preview or
    import."""

    ACTIONS = (("preview", _("Preview")), ("import", _("Import")))

    action = forms.ChoiceField(choices=ACTIONS, required=False)
    file = forms.FileField(required=False, label=_("File"))
    text = forms.CharField(required=False, strip=False, widget=forms.Textarea, label=_("or paste its text"))

    def importing(self) -> bool:
        return self.is_valid() and self.cleaned_data.get("action") == "import"


class RosterFileForm(_SeasonFileForm):
    """Rosters from a file: the clan list or CSV, into teams or families."""

    format = forms.ChoiceField(choices=(("auto", _("by its lines")), ("clans", _("clan list: Clan: nick, nick")),
                                        ("csv", _("CSV: team,player[,captain]"))), required=False, label=_("Format"))
    families = forms.BooleanField(required=False, label=_("The clans are families (a family league's teams)"))


class LogBatchForm(forms.Form):
    """Game logs in a batch: the logs (files or a folder, or those the preview carried), the stage,
    and the stage list that places them."""

    action = forms.ChoiceField(choices=_SeasonFileForm.ACTIONS, required=False)
    stage = forms.CharField(max_length=40, label=_("Stage"))
    logs = MultipleFileField(label=_("Game log pages"))
    folder = MultipleFileField(label=_("or a folder of them"))
    stage_list_file = forms.FileField(required=False, label=_("Stage list"))
    stage_list = forms.CharField(required=False, strip=False, widget=forms.Textarea,
                                 label=_("or paste the stage list"))
    lines = forms.CharField(required=False, max_length=500, label=_("Lines of the list for this stage"))

    def importing(self) -> bool:
        return self.is_valid() and self.cleaned_data.get("action") == "import"

    def carried(self) -> list[tuple[str, str]]:
        """The logs the preview page carried (their names and texts), in order."""
        names = self.data.getlist("carried_name") if hasattr(self.data, "getlist") else []
        texts = self.data.getlist("carried_html") if hasattr(self.data, "getlist") else []
        return list(zip(names, texts, strict=False))


class PenaltyFileForm(_SeasonFileForm):
    """Penalties from a file, with the stage list that places their games."""

    stage_list_file = forms.FileField(required=False, label=_("Stage list"))
    stage_list = forms.CharField(required=False, strip=False, widget=forms.Textarea,
                                 label=_("or paste the stage list"))
    lines = forms.CharField(required=False, max_length=500, label=_("Lines of the list and their stages"))
