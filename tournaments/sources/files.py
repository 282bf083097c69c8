"""Reading an uploaded or named source file within the size limit, before any parsing."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from rulesets.errors import Invalid, Problem


def size_limit() -> int:
    """The largest file an import reads: ``IMPORT_MAX_BYTES`` (``DATA_UPLOAD_MAX_MEMORY_SIZE``), as for documents."""
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def too_large(size: int) -> Problem | None:
    """A file over the limit is refused before it is read."""
    limit = size_limit()
    if size > limit:
        return Problem("", _("the file is %(size)d bytes, more than the %(limit)d allowed (IMPORT_MAX_BYTES); "
                             "nothing was read") % {"size": size, "limit": limit})
    return None


def as_text(raw: bytes) -> str:
    """The page's text: UTF-8 as the site serves it, else Windows-1251 (an older save of the page)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1251", errors="replace")


def read_file(path: str) -> bytes:
    """The bytes of ``path``, refused (``Invalid``) when larger than the limit or unreadable."""
    try:
        size = Path(path).stat().st_size
    except OSError as exc:
        raise Invalid(Problem("", _("cannot read %(path)s: %(error)s") % {"path": path, "error": exc})) from exc
    problem = too_large(size)
    if problem is not None:
        raise Invalid(problem)
    with open(path, "rb") as handle:
        raw = handle.read(size_limit() + 1)
    problem = too_large(len(raw))
    if problem is not None:
        raise Invalid(problem)
    return raw


def nul_problem(text: str) -> Problem | None:
    """A text file holding a NUL character is refused whole (no column of the database stores one)."""
    if "\x00" in text:
        return Problem("", _("the file contains a NUL character: it is not a text file"))
    return None


def at_line(number: int, message: str) -> Problem:
    """A problem of a text file's line ``number`` (1-based): the path ``lines[number-1]``, the message naming the
    line (the roster, stage list and penalty files of a season)."""
    return Problem(f"lines[{number - 1}]", _("line %(line)d: %(problem)s") % {"line": number, "problem": message})


def refuse_in_command(stderr, problems) -> None:
    """A management command's refusal: each problem on stderr, then ``CommandError`` (nothing was saved)."""
    if problems:
        for problem in problems:
            stderr.write(str(problem))
        raise CommandError(f"refused: {len(problems)} problem(s); nothing was saved")
