"""Messages in the reader's language: a ``rulesets.messages.Text`` (or its stored form) rendered when shown.

Below the format homes and the portal, which both show messages (pages, API, history, mail).

The template is looked up in the catalogue (``gettext``); each parameter is rendered as well: a nested message in
turn, a stage key by its name, a penalty or violation kind by its label. A plain string is shown as it is.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from rulesets.errors import Problem, Refused
from rulesets.messages import Text, as_data, from_data
from tournaments import labels

_KEYED = {"kind": labels.PENALTY_KINDS, "side": labels.SIDES, "item": labels.ITEMS}


def _keyed(name: str, value: Any) -> Any:
    """A parameter named ``stage``, ``kind``, ``side`` or ``item`` holds a key: it is shown by its label."""
    if name == "stage":
        return labels.stage_label(value)
    if name in _KEYED and isinstance(value, str):
        return _KEYED[name].get(value, value)
    return value


def render(value: Any) -> str:
    """``value`` in the active language: a ``Text`` (or its stored form) translated; a plain string (a judge's
    own words, a name) as it is."""
    value = from_data(value)
    if not isinstance(value, Text):
        return "" if value is None else str(value)
    params = {name: render(param) if isinstance(from_data(param), Text) else str(_keyed(name, param))
              for name, param in value.params.items()}
    template = gettext(value.template) if value.template else ""
    try:
        return template % params if params else template
    except (KeyError, ValueError, TypeError):  # a catalogue entry that lost a placeholder: the English sentence
        return value.template % params if params else value.template


def problem_row(problem: Problem) -> dict[str, Any]:
    """A refusal as the API sends it: where, the message in the reader's language, and, for a message with a code,
    the code (its English template, the catalogue's msgid) and its parameters."""
    row: dict[str, Any] = {"path": problem.path, "message": render(problem.message)}
    message = from_data(problem.message)
    if isinstance(message, Text):
        row["code"] = message.template
        row["params"] = {name: as_data(value) if isinstance(value, Text) else str(value)
                         for name, value in message.params.items()}
    return row


def refusal_text(error: BaseException) -> str:
    """A refusal (or any error whose message reaches a reader) in the active language: each problem's message
    rendered, after the field it is about when it names one."""
    if isinstance(error, Refused):
        return "; ".join(render(p.message) for p in error.located())
    return render(error.args[0]) if error.args and isinstance(error.args[0], str) else str(error)
