"""Russian (default) and English: complete catalogues, right Russian plural forms, compiled files up to date."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.translation import gettext, ngettext, pgettext

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
RU_PO = LOCALE / "ru" / "LC_MESSAGES" / "django.po"
EN_PO = LOCALE / "en" / "LC_MESSAGES" / "django.po"
RU_PLURAL_FORMS = ("nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
                   "(n%100<10 || n%100>=20) ? 1 : 2);")
PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]|\{\{\s*\w+\s*\}\}")


def catalogue(path: Path) -> list[dict]:
    """The entries of a .po file (obsolete ones left out): flags, context, ids and translations."""
    entries: list[dict] = []
    entry: dict | None = None
    field: tuple[str, int | None] | None = None
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            if entry is not None:
                entries.append(entry)
            entry, field = None, None
            continue
        if line.startswith("#~"):
            continue
        if entry is None:
            entry = {"flags": set(), "msgctxt": None, "msgid": "", "msgid_plural": None, "msgstr": {}}
        if line.startswith("#,"):
            entry["flags"] |= {flag.strip() for flag in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr)(?:\[(\d+)\])?\s+(".*")$', line)
        if match:
            keyword, index, value = match.groups()
            field = (keyword, int(index) if index is not None else None)
            _store(entry, field, ast.literal_eval(value))
        elif line.startswith('"') and field is not None:
            _store(entry, field, ast.literal_eval(line), append=True)
    return [e for e in entries if e["msgid"] or e["msgctxt"]]


def _store(entry: dict, field: tuple[str, int | None], value: str, append: bool = False) -> None:
    keyword, index = field
    if keyword == "msgstr":
        key = index if index is not None else 0
        entry["msgstr"][key] = entry["msgstr"].get(key, "") + value if append else value
    else:
        entry[keyword] = (entry[keyword] or "") + value if append else value


def header(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text[:text.index("\n\n")]


def test_russian_catalogue_translates_every_message_without_fuzzy_entries():
    entries = catalogue(RU_PO)
    assert len(entries) > 100
    untranslated = [e["msgid"] for e in entries if not all(v.strip() for v in e["msgstr"].values())]
    fuzzy = [e["msgid"] for e in entries if "fuzzy" in e["flags"]]
    assert untranslated == []
    assert fuzzy == []
    assert "#, fuzzy" not in header(RU_PO) and "#, fuzzy" not in header(EN_PO)


def test_russian_catalogue_declares_three_plural_forms_and_fills_each():
    assert f'"Plural-Forms: {RU_PLURAL_FORMS}\\n"' in header(RU_PO)
    plurals = [e for e in catalogue(RU_PO) if e["msgid_plural"] is not None]
    assert plurals
    for entry in plurals:
        assert sorted(entry["msgstr"]) == [0, 1, 2], entry["msgid"]
        assert len(set(entry["msgstr"].values())) >= 2, entry["msgid"]


def test_russian_translations_keep_every_placeholder():
    for entry in catalogue(RU_PO):
        wanted = set(PLACEHOLDER.findall(entry["msgid"])) | set(PLACEHOLDER.findall(entry["msgid_plural"] or ""))
        for form in entry["msgstr"].values():
            assert set(PLACEHOLDER.findall(form)) <= wanted, entry["msgid"]
            if entry["msgid_plural"] is None:
                assert set(PLACEHOLDER.findall(form)) == wanted, entry["msgid"]


def test_english_catalogue_holds_the_same_messages():
    def ids(path: Path) -> set:
        return {(e["msgctxt"], e["msgid"]) for e in catalogue(path)}

    assert ids(EN_PO) == ids(RU_PO)


def test_english_catalogue_shows_the_messages_as_written():
    """English msgstrs stay empty (the msgid is shown): no fuzzy guess from a similar message slips in."""
    for entry in catalogue(EN_PO):
        forms = [form for form in entry["msgstr"].values() if form]
        assert forms == [] or forms == [entry["msgid"]], entry["msgid"]
        assert "fuzzy" not in entry["flags"], entry["msgid"]


@pytest.mark.parametrize("count, expected", [
    (1, "1 игра"), (2, "2 игры"), (4, "4 игры"), (5, "5 игр"), (11, "11 игр"), (12, "12 игр"),
    (14, "14 игр"), (21, "21 игра"), (22, "22 игры"), (25, "25 игр"), (101, "101 игра"), (111, "111 игр"),
])
def test_russian_plural_forms_pick_the_right_word(count, expected):
    with translation.override("ru"):
        assert ngettext("%(counter)s game", "%(counter)s games", count) % {"counter": count} == expected


def test_english_plural_forms():
    with translation.override("en"):
        assert ngettext("%(counter)s tour", "%(counter)s tours", 1) % {"counter": 1} == "1 tour"
        assert ngettext("%(counter)s tour", "%(counter)s tours", 21) % {"counter": 21} == "21 tours"


def test_model_names_and_choices_are_translated():
    from tournaments.models import Appeal, Game, Outcome, RoleChoice, Tournament

    with translation.override("ru"):
        assert str(Tournament._meta.verbose_name) == "турнир"
        assert str(Game._meta.verbose_name_plural) == "игры"
        assert str(Appeal._meta.verbose_name) == "апелляция"
        assert str(Outcome.CIVILIANS.label) == "победа мирных"
        assert str(RoleChoice.COMMISSAR.label) == "комиссар"
    with translation.override("en"):
        assert str(Tournament._meta.verbose_name) == "tournament"


def test_contexts_keep_homonyms_apart():
    with translation.override("ru"):
        assert pgettext("stage", "final") == "финал"
        assert gettext("final") == "окончательная"
        assert pgettext("side", "mafia") == "мафия"
        assert gettext("mafia") == "мафиози"


def _compile(po: Path, out: Path) -> bytes:
    subprocess.run(["msgfmt", "--check-format", "-o", str(out), str(po)], check=True, capture_output=True)
    return out.read_bytes()


@pytest.mark.parametrize("language", ["ru", "en"])
def test_compiled_catalogues_match_their_sources(language, tmp_path):
    """The committed .mo is what compilemessages makes of the committed .po (nobody forgot to compile)."""
    if shutil.which("msgfmt") is None:
        pytest.skip("msgfmt (gettext) is not installed")
    po = LOCALE / language / "LC_MESSAGES" / "django.po"
    mo = po.with_suffix(".mo")
    assert mo.exists()
    assert _compile(po, tmp_path / "django.mo") == mo.read_bytes()


SKIP_ON_COPY = {".venv", ".git", "tests", "locale", "staticfiles", ".ruff_cache", ".hypothesis", ".pytest_cache",
                "node_modules", "media", "db.sqlite3"}


def test_catalogues_hold_every_message_the_code_and_templates_mark(tmp_path):
    """makemessages on a copy of the project finds no message the committed catalogue lacks."""
    if shutil.which("xgettext") is None:
        pytest.skip("xgettext (gettext) is not installed")
    copy = tmp_path / "project"
    copy.mkdir()
    for item in ROOT.iterdir():
        if item.name in SKIP_ON_COPY or item.name.endswith((".sqlite3", ".log")):
            continue
        if item.is_dir():
            shutil.copytree(item, copy / item.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(item, copy / item.name)
    (copy / "locale").mkdir()
    result = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "ru", "--ignore=.venv", "--ignore=tests"],
        cwd=copy, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE":
                                                          "config.settings", "DJANGO_DEBUG": "True"},
    )
    assert result.returncode == 0, result.stderr
    found = {(e["msgctxt"], e["msgid"]) for e in catalogue(copy / "locale" / "ru" / "LC_MESSAGES" / "django.po")}
    known = {(e["msgctxt"], e["msgid"]) for e in catalogue(RU_PO)}
    missing = sorted(found - known, key=str)
    assert missing == [], ("run: manage.py makemessages -l ru -l en --ignore=.venv --ignore=tests, translate, "
                           f"then compilemessages; missing: {missing}")


@pytest.mark.django_db
def test_pages_speak_russian_by_default_and_english_on_request(client):
    from tournaments.models import Tournament

    Tournament.objects.create(slug="t", name="T", ruleset="chgk_tour_points")
    russian = client.get("/").content.decode()
    assert '<html lang="ru">' in russian and "Текущие турниры" in russian and "идёт" in russian
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in english and "Current tournaments" in english and "running" in english
