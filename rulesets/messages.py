"""Messages as codes with parameters: a sentence that can be shown in any language (pure: no Django).

A ruleset (or any layer) writes a refusal, a warning, a note or a seat's reason as

    from rulesets.messages import text as _
    Problem("group", _("a game of a stage with several groups names its group (%(rule)s)", rule="FL-8"))

``text`` returns a ``Text``: a ``str`` whose value is the English sentence (what exports, logs and tests read,
unchanged), carrying its ``template`` (the catalogue's msgid, collected by ``makemessages`` because the call is
spelled ``_``) and its ``params``. The pages and the API render it in the reader's language
(``tournaments.messages.render``): the template is looked up in the catalogue and the parameters put in, each
rendered too when it is itself a ``Text``. Stored, it keeps both (``as_data`` / ``from_data``), so a history
entry or a stored figure is rendered when read, in the reader's language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

DATA_KEY = "$text"  # a stored Text: {"$text": template, "params": {...}}


class Text(str):
    """An English sentence that knows the template and parameters it was made from."""

    template: str
    params: Mapping[str, Any]

    def __new__(cls, template: str, params: Mapping[str, Any] | None = None) -> Text:
        params = dict(params or {})
        value = super().__new__(cls, template % {k: str(v) for k, v in params.items()} if params else template)
        value.template = template
        value.params = params
        return value

    def __reduce__(self) -> tuple[Any, ...]:
        return (Text, (self.template, dict(self.params)))

    def __deepcopy__(self, memo: dict) -> Text:
        return self

    def __copy__(self) -> Text:
        return self

    def as_data(self) -> dict[str, Any]:
        """The JSON form that keeps the template and the parameters."""
        return {DATA_KEY: self.template, "params": {k: as_data(v) for k, v in self.params.items()}}


def text(template: str, /, **params: Any) -> Text:
    """A message: ``template`` is an English sentence with ``%(name)s`` placeholders, filled from ``params``."""
    return Text(template, params)


def as_data(value: Any) -> Any:
    """A ``Text`` as its JSON form; anything else as it is."""
    return value.as_data() if isinstance(value, Text) else value


def from_data(value: Any) -> Any:
    """The inverse of ``as_data``: a stored ``{"$text": ...}`` back as a ``Text``; anything else as it is."""
    if isinstance(value, Mapping) and DATA_KEY in value:
        return Text(value[DATA_KEY], {k: from_data(v) for k, v in (value.get("params") or {}).items()})
    return value


def mapped(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to its text: a ``Text``'s parameters (its template is the catalogue's),
    a plain string itself."""
    if isinstance(value, Text):
        return Text(value.template, {k: mapped(v, change) if isinstance(v, str) else v for k, v in value.params.items()})
    return change(value) if isinstance(value, str) else value


def join(separator: str, parts: list[Any]) -> Text | str:
    """Parts joined by ``separator`` (``"; "``, ``", "``) as one message whose parts stay messages."""
    if not any(isinstance(part, Text) for part in parts):
        return separator.join(str(part) for part in parts)
    names = [f"p{i}" for i in range(len(parts))]
    return Text(separator.join(f"%({name})s" for name in names), dict(zip(names, parts)))


__all__ = ["DATA_KEY", "Text", "as_data", "from_data", "join", "mapped", "text"]
