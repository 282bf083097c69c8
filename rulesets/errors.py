"""The one hierarchy of refusals, shared by every layer (pure: no Django, no HTTP).

A command that refuses raises a ``Refused``: nothing was written, and
``problems`` say where (a path into what was sent, ``""`` for the whole) and
why. The class says what kind of refusal it is, as a short machine ``code``:

- ``Invalid`` (``"invalid"``): bad input, or something the rules refuse;
- ``NotAllowed`` (``"forbidden"``): the acting user may not do this;
- ``NotFound`` (``"not_found"``): the thing acted on does not exist;
- ``Conflict`` (``"conflict"``): the state changed meanwhile (a stale
  version), or the thing is already done (already decided, already paid).

Each module's own refusal class (``AppealRefused``, ``ImportRefused`` ...)
subclasses one of these; where one class mixes kinds, a small subclass next
to it names the other kind (``AppealNotAllowed(AppealRefused, NotAllowed)``):
only the four kinds above set ``code``, so such a subclass takes the code of
the kind it names whichever base comes first. Only the pages and the API turn
a code into something of their own (``portal.api.errors.STATUS``: the HTTP
status, in one place).

``Problem`` lives here (``rulesets.base`` re-exports it) so that the base
module can make its ``RulesetError`` an ``Invalid`` without an import cycle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rulesets.messages import join


@dataclass(frozen=True)
class Problem:
    """One refusal: where in the document and why (with the rule code)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def as_problems(problems: Any) -> list[Problem]:
    """A message, a ``Problem`` or a list of them (a message is about the whole: path ``""``)."""
    if isinstance(problems, Problem):
        return [problems]
    if isinstance(problems, (list, tuple)):
        return [p if isinstance(p, Problem) else Problem("", _message(p)) for p in problems]
    return [Problem("", _message(problems))]


def _message(value: Any) -> str:
    """A message as it is when it is text (a ``rulesets.messages.Text`` keeps its template), else its ``str``."""
    return value if isinstance(value, str) else str(value)


class Refused(Exception):
    """Nothing was done; ``problems`` say where and why, ``code`` says what kind of refusal.

    ``Refused(message)``, ``Refused(problem)`` or ``Refused([problem, ...])``;
    ``extra`` carries facts a client needs to act on it (a conflict's current
    ``version``, who changed it and when). ``str(exc)`` is the messages,
    each after its path.
    """

    code = "invalid"  # a refusal of no named kind is a refusal of the input

    def __init__(self, problems: str | Problem | Iterable[Problem | str] = "", *,
                 extra: dict[str, Any] | None = None):
        self.problems = as_problems(problems)
        self.extra = dict(extra or {})
        super().__init__("; ".join(str(p) for p in self.problems))

    def located(self) -> list[Problem]:
        """The problems as ``Problem`` objects (a subclass may keep plain messages in ``problems``)."""
        return as_problems(list(self.problems))

    @property
    def message(self) -> str:
        """The messages without their paths, for a reader who sees no document."""
        return join("; ", [p.message for p in self.located()])


class Invalid(Refused):
    """Bad input, or a change the rules refuse (code ``invalid``)."""


class NotAllowed(Refused):
    """The acting user may not do this (code ``forbidden``)."""

    code = "forbidden"


class NotFound(Refused):
    """What the command acts on does not exist (code ``not_found``)."""

    code = "not_found"


class Conflict(Refused):
    """The state changed meanwhile or the thing is already done (code ``conflict``)."""

    code = "conflict"


KINDS: tuple[type[Refused], ...] = (Invalid, NotAllowed, NotFound, Conflict)
