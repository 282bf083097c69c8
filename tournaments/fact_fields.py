"""The fact fields as the rows, the API, the entry form and the history know them: one mapping an entity.

``rulesets.facts`` declares each field of a fact once (``SEAT_FIELDS``: name, kind, default); here each gets what
only the Django side knows: the row's column (a reference, a player or a team, is held by its key and read by its
name), the entry form's column header, whether the game log reader gives it, the API's help text, and its label
(the model field's verbose name: the history page and the problems in words). The layers iterate the mapping
instead of naming the fields: the importer's rows (``tournaments.importer``), the loader's facts
(``tournaments.loader``), the commands' writes (``tournaments.commands``), the history's before and after
(``tournaments.audit``, ``portal.history``), the admin's seats, the API's serializers and examples
(``portal.api``), the entry form's seat cells and the log's preview (``portal.views``), the words of
``portal.labels``. ``tests/test_fact_mappings.py`` holds the layers to it; docs/architecture.md, "Adding a fact
field", says which files a new field touches.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.utils.translation import gettext_lazy as _

from rulesets import facts as F
from tournaments.models import Seat

KIND_ORDER = {kind: i for i, kind in enumerate(F.FIELD_KINDS)}  # the history's order: who, role, numbers, flags


@dataclass(frozen=True)
class Mapped:
    """What the Django side adds to a declared fact field (``rulesets.facts.FactField``)."""

    header: Any = None  # the entry form's column header (a number or a flag: one cell a seat)
    in_log: bool = False  # the game log reader gives it (``tournaments.sources.game_log_import``)
    reference: str = ""  # a name held by its row's key: the lookup of the name (``player__nick``)
    help: str = ""  # the API's help text


@dataclass(frozen=True)
class MappedField:
    fact: F.FactField
    model: type
    mapped: Mapped

    @property
    def name(self) -> str:
        return self.fact.name

    @property
    def kind(self) -> str:
        return self.fact.kind

    @property
    def default(self) -> Any:
        return self.fact.default

    @property
    def column(self) -> str:
        """The row's attribute that holds it (a reference: its key, ``player_id``)."""
        return f"{self.name}_id" if self.mapped.reference else self.name

    @property
    def read(self) -> str:
        """The ``values_list`` lookup that gives the fact's value (a reference: the name, ``player__nick``)."""
        return self.mapped.reference or self.name

    @property
    def label(self) -> Any:
        """The field in words: the model field's verbose name (the history page, the problems in words)."""
        return self.model._meta.get_field(self.name).verbose_name

    @property
    def choices(self) -> list[tuple[str, Any]]:
        return self.model._meta.get_field(self.name).choices or []


@dataclass(frozen=True)
class EntityMapping:
    """An entity's fields in the declaration's order, with what each layer takes of them."""

    model: type
    fields: tuple[MappedField, ...]
    by_name: dict[str, MappedField] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {f.name: f for f in self.fields})

    def named(self, kinds: Iterable[str]) -> tuple[str, ...]:
        kinds = set(kinds)
        return tuple(f.name for f in self.fields if f.kind in kinds)

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @cached_property
    def values(self) -> tuple[str, ...]:
        """The fields held in the row as the facts hold them (no reference): column, fact and API names alike."""
        return tuple(f.name for f in self.fields if not f.mapped.reference)

    @cached_property
    def references(self) -> tuple[MappedField, ...]:
        return tuple(f for f in self.fields if f.mapped.reference)

    @cached_property
    def columns(self) -> tuple[str, ...]:
        """The row's columns of every field, in order (references by their keys): the importer's bulk rows."""
        return tuple(f.column for f in self.fields)

    @cached_property
    def reads(self) -> tuple[str, ...]:
        """The ``values_list`` lookups that give every field's fact value, in order (the API's rows)."""
        return tuple(f.read for f in self.fields)

    @cached_property
    def cells(self) -> tuple[MappedField, ...]:
        """The entry form's cells of a seat after its player, team and role: the numbers and flags, in order."""
        return tuple(f for f in self.fields if f.kind in ("count", "flag"))

    @cached_property
    def history(self) -> tuple[str, ...]:
        """The fields the history keeps of a row besides its references: the choices, the numbers, the flags."""
        return tuple(sorted(self.values, key=lambda name: KIND_ORDER[self.by_name[name].kind]))

    @cached_property
    def not_in_log(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if not f.mapped.in_log)

    def labels(self) -> dict[str, Any]:
        return {f.name: f.label for f in self.fields}

    def of(self, fact: Any) -> dict[str, Any]:
        """The row's values (no references) of a fact: ``Seat(**...)``'s keywords."""
        return {name: getattr(fact, name) for name in self.values}

    def example(self, given: dict[str, Any]) -> dict[str, Any]:
        """An API example: ``given``, and the default of every field it leaves out, in the fields' order."""
        return {**given, **{f.name: f.default for f in self.fields if f.name not in given}}


def mapping(model: type, declared: tuple[F.FactField, ...], **mapped: Mapped) -> EntityMapping:
    """The mapping of ``model``'s rows to the facts ``declared``: one ``Mapped`` a field, every field once."""
    names = [f.name for f in declared]
    if list(mapped) != names:
        raise TypeError(f"{model.__name__}: map every declared field once, in order: {', '.join(names)}")
    return EntityMapping(model, tuple(MappedField(f, model, mapped[f.name]) for f in declared))


SEAT = mapping(
    Seat, F.SEAT_FIELDS,
    player=Mapped(in_log=True, reference="player__nick", help="nick of a player of the tournament"),
    team=Mapped(in_log=True, reference="team__name", help="name of the player's team"),  # from the rosters
    role=Mapped(in_log=True),
    stats=Mapped(_("Stats")),  # CB-3 needs stats in class_balanced: the organizer types them
    timed_out=Mapped(_("Timed out"), in_log=True),
    days_played=Mapped(_("Days played"), in_log=True),
    maniac_kills=Mapped(_("Maniac kills"), in_log=True),
    in_final_phase=Mapped(_("Last day/night"), in_log=True),
    fake_passport=Mapped(_("Fake passport")),  # FL-6
)
