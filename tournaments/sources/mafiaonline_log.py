"""A mafiaonline.ru game log ("Лог партии №N") read into one Mafia game object of the interchange.

Pure: ``parse_game_log(text)`` takes the page's HTML as the site serves it and
returns the game object (``spec/interchange.md``, "Mafia game") without the
seats' teams (the log does not know the tournament's clans: ``assign_teams``
adds them from a roster) and without ``stats`` (not in the log), plus the
problems found, each with a path. Only ``html.parser`` of the standard library.

What is read, and from where (``tests/data/real/mafiaonline/SOURCE.md``):

- the game's number from the title ("Лог партии №3624027") and its link from the
  page's canonical address (``http://mafiaonline.ru/log/3624027``);
- the seats, in seat order, from the table "Лог в картинках": the player's nick
  and the role picture's ``alt`` text (the reliable source of every role, the
  survivors' included), mapped as ``ROLE_OF_PICTURE`` says
  (``spec/mafia_glossary.md``: the boss's illegitimate son or daughter is a
  ``civilian``);
- everything else from the host's lines (``[ОМОНОВЕЦ]``) of the chat log:
  days and nights, each jailing and killing, the maniac's kills, time-outs, the
  riot police and the end.

Definitions (``spec/mafia_glossary.md``, FL-14):

- ``game_days``: the days that ended with somebody jailed (by the day's vote, or
  by the riot police's jailing, "Рассвирепевший ОМОНОВЕЦ ... будет отправлен в
  тюрьму");
- ``days_played``: the game days a player completed; the day that ended with the
  player's own jailing counts (they played it to its vote), a day during which
  the player dropped out does not; a survivor completed all ``game_days``;
- ``maniac_kills``: the players killed in a night who were the maniac's target
  that night ("Маньяк X убивает Y"; a victim both the maniac and the mafia shot
  counts as the maniac's kill: the maniac's shot landed);
- ``in_final_phase``: the player was still in the game when its last day or
  night began;
- ``timed_out``: the host says the player dropped out for a time-out, or a
  player still in the game left it ("Воспользовался правом выйти из партии";
  a player who leaves after being jailed or killed is not a time-out);
- ``omon``: the riot police's line appears; the game still has its outcome (their victim is shown killed
  in the seat table, jailed in the host's line: a jailing);
- the outcome from "Игра окончена. ...": ``ENDINGS``; any other ending is refused,
  quoting the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from django.utils.translation import gettext as _

from rulesets.errors import Problem

ROLE_OF_PICTURE = {
    "Честный житель": "civilian",
    "Комиссар": "commissar",
    "Сержант": "sergeant",
    "Врач": "doctor",
    "Мафия": "mafia",
    "Босс": "don",
    "Маньяк": "maniac",
    "Внебрачный сын босса": "civilian",
    "Внебрачная дочь босса": "civilian",
}
STATE_OF_PICTURE = {"Убит": "killed", "Посажен в тюрьму": "jailed"}
# "Игра окончена. <ending>" -> outcome; matched on the ending's start, case-insensitively
ENDINGS = (
    ("вся мафия убита", "civilians"),
    ("мафия победила", "mafia"),
    ("победила мафия", "mafia"),
    ("маньяк победил", "maniac"),
    ("победил маньяк", "maniac"),
    ("победа маньяка", "maniac"),
    ("ничья", "draw"),
)
HOST = "[ОМОНОВЕЦ]"
TITLE = re.compile(r"Лог партии\s*№\s*(\d+)")
LINK = re.compile(r"^https?://(?:www\.)?mafiaonline\.ru/log/(\d+)/?$")
LINE_TIME = re.compile(r"^\d{1,3}:\d\d\s+")
GAME_OVER = "Игра окончена."
DAY_STARTS = ("Наступил день",)
NIGHT_STARTS = ("Наступила ночь", "Ход комиссара", "Ход босса")
JAILED = (" отправлен в тюрьму.", " отправлена в тюрьму.")
KILLED = (" убит", " убита")
RIOT_POLICE = "Рассвирепевший ОМОНОВЕЦ"
RIOT_JAIL = re.compile(r"решил, что (?P<nick>.+) будет отправлен[а]? в тюрьму\.?$")
MANIAC_SHOT = re.compile(r"^(?:Маньяк|Маньячка) (?P<rest>.+)\.$")
LEFT_GAME = " Воспользовался правом выйти из партии."
TIME_OUT = re.compile(r"тайм-?аут|таймаут", re.IGNORECASE)
SITE = "https://mafiaonline.ru/log/"


@dataclass
class _Seat:
    nick: str
    picture: str
    role: str | None
    state: str | None  # the seat table's final state: "killed", "jailed" or None (alive)


class _LogPage(HTMLParser):
    """The parts of the page the reader needs: the title, the canonical link, the seat table, the chat log."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.canonical = ""
        self.og_url = ""
        self.seats: list[_Seat] = []
        self.lines: list[str] = []
        self.closed_html = False
        self._in_title = False
        self._row: dict[str, Any] | None = None
        self._in_nick = False
        self._chat_depth = 0  # >0 while inside <div id="selectable-content">
        self._line: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if self._chat_depth:
            if tag == "div":
                self._chat_depth += 1
            elif tag == "br":
                self._end_line()
            return
        if tag == "title":
            self._in_title = True
        elif tag == "link" and a.get("rel") == "canonical":
            self.canonical = a.get("href", "")
        elif tag == "meta" and a.get("property") == "og:url":
            self.og_url = a.get("content", "")
        elif tag == "tr":
            self._row = {"alts": [], "nick": []}
        elif tag == "img" and self._row is not None:
            self._row["alts"].append(a.get("alt", ""))
        elif tag == "span" and self._row is not None and "znach" in a.get("class", "").split():
            self._in_nick = True
        elif tag == "div" and a.get("id") == "selectable-content":
            self._chat_depth = 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self._chat_depth:
            if tag == "div":
                self._chat_depth -= 1
                if not self._chat_depth:
                    self._end_line()
            return
        if tag == "title":
            self._in_title = False
        elif tag == "span":
            self._in_nick = False
        elif tag == "tr" and self._row is not None:
            self._close_row()
        elif tag == "html":
            self.closed_html = True

    def handle_data(self, data: str) -> None:
        if self._chat_depth:
            self._line.append(data)
        elif self._in_title:
            self.title += data
        elif self._in_nick and self._row is not None:
            self._row["nick"].append(data)

    def _end_line(self) -> None:
        text = " ".join("".join(self._line).split())
        if text:
            self.lines.append(text)
        self._line = []

    def _close_row(self) -> None:
        row, self._row = self._row, None
        nick = "".join(row["nick"]).strip()
        roles = [alt for alt in row["alts"] if alt in ROLE_OF_PICTURE]
        states = [alt for alt in row["alts"] if alt in STATE_OF_PICTURE]
        if not nick or not row["alts"]:
            return
        others = [alt for alt in row["alts"] if alt not in ROLE_OF_PICTURE and alt not in STATE_OF_PICTURE]
        if not roles and not others:
            return
        picture = roles[0] if roles else others[-1]
        self.seats.append(_Seat(nick=nick, picture=picture, role=ROLE_OF_PICTURE.get(picture),
                                state=STATE_OF_PICTURE[states[0]] if states else None))


@dataclass
class _Play:
    """The game as the host's lines tell it, event by event."""

    nicks: list[str]
    alive: set[str] = field(default_factory=set)
    phase: str = ""  # "day" or "night"
    phase_alive: set[str] = field(default_factory=set)
    jailed_today: bool = False
    game_days: int = 0
    out_after_days: dict[str, int] = field(default_factory=dict)
    how_out: dict[str, str] = field(default_factory=dict)
    timed_out: set[str] = field(default_factory=set)
    maniac_target: str | None = None
    maniac_kills: int = 0
    omon: bool = False
    riot_jailed: set[str] = field(default_factory=set)
    ending: str | None = None
    started: bool = False

    def begin(self, phase: str) -> None:
        if phase == self.phase:
            return
        self.phase = phase
        self.phase_alive = set(self.alive)
        if phase == "day":
            self.jailed_today = False
        else:
            self.maniac_target = None

    def eliminate(self, nick: str, how: str) -> None:
        if nick not in self.alive:
            return
        self.alive.discard(nick)
        self.how_out[nick] = how
        if how == "jailed":
            if not self.jailed_today:
                self.jailed_today = True
                self.game_days += 1
            self.out_after_days[nick] = self.game_days
        else:
            self.out_after_days[nick] = self.game_days


def _nick_before(text: str, endings: tuple[str, ...], nicks: list[str]) -> str | None:
    """The seat's nick that ``text`` names right before one of ``endings`` (the longest nick first)."""
    for ending in endings:
        if text.endswith(ending):
            head = text[: -len(ending)]
            for nick in nicks:
                if head == nick or head.endswith(" " + nick):
                    return nick
    return None


def _nick_at_start(text: str, nicks: list[str]) -> tuple[str, str] | None:
    for nick in nicks:
        if text.startswith(nick + " "):
            return nick, text[len(nick) + 1:]
    return None


def _host_lines(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        text = LINE_TIME.sub("", line, count=1)
        if text.startswith(HOST):
            out.append(text[len(HOST):].strip())
    return out


def _outcome(ending: str) -> str | None:
    lowered = ending.strip().lower()
    return next((outcome for start, outcome in ENDINGS if lowered.startswith(start)), None)


def _play(host: list[str], nicks: list[str], problems: list[Problem]) -> _Play:
    by_length = sorted(nicks, key=len, reverse=True)
    play = _Play(nicks=nicks, alive=set(nicks))
    for text in host:
        if play.ending is not None:
            break
        if text.startswith(GAME_OVER):
            play.ending = text
            break
        if text.startswith("Игра началась"):
            play.started = True
            continue
        if text.startswith(DAY_STARTS):
            play.begin("day")
            continue
        if text.startswith(NIGHT_STARTS):
            play.begin("night")
            continue
        if text.startswith(RIOT_POLICE):
            play.omon = True
            match = RIOT_JAIL.search(text)
            nick = next((n for n in by_length if match and match.group("nick").strip() == n), None)
            if nick is not None:
                play.riot_jailed.add(nick)
                play.eliminate(nick, "jailed")
            continue
        jailed = _nick_before(text, JAILED, by_length)
        if jailed is not None:
            play.eliminate(jailed, "jailed")
            continue
        killed = _nick_before(text, KILLED, by_length)
        if killed is not None and " пытается " not in text:
            if play.maniac_target == killed:
                play.maniac_kills += 1
            play.eliminate(killed, "killed")
            continue
        shot = MANIAC_SHOT.match(text)
        if shot is not None and " убивает " in shot.group("rest"):
            found = _nick_at_start(shot.group("rest"), by_length)
            if found is not None:
                target = found[1].removeprefix("убивает ").strip()
                play.maniac_target = next((n for n in by_length if n == target), None)
            continue
        leaving = _nick_at_start(text, by_length)
        if (text.endswith(LEFT_GAME.strip()) or TIME_OUT.search(text)) and leaving is not None:
            nick = leaving[0]
            if nick in play.alive:
                play.timed_out.add(nick)
                play.eliminate(nick, "timed_out")
            continue
    return play


def parse_game_log(text: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The game object of a "Лог партии" page, and the problems (none: the game can be recorded).

    The object has ``number`` (the site's game number), ``status`` ``played``,
    ``outcome``, ``omon``, ``game_days``, ``link`` and ``seats`` (``player``,
    ``role``, ``timed_out``, ``days_played``, ``maniac_kills``,
    ``in_final_phase``) in seat order; no ``team`` and no ``stats``. ``None``
    with the problems when the page is not a whole game log.
    """
    if not isinstance(text, str) or not text.strip():
        return None, [Problem("", _("the page is empty"))]
    page = _LogPage()
    try:
        page.feed(text)
        page.close()
    except (AssertionError, ValueError) as exc:  # html.parser gives up on some broken markup
        return None, [Problem("", _("the page is not readable HTML: %(error)s") % {"error": exc})]
    title = TITLE.search(page.title) or TITLE.search(text[:4000])
    if title is None:
        return None, [Problem("", _("this is not a mafiaonline.ru game log: the page has no title "
                                    "\"Лог партии №…\""))]
    number = int(title.group(1))
    if not page.seats:
        return None, [Problem("seats", _("the log of game %(number)d has no seat table (\"Лог в картинках\"): "
                                         "the page is truncated") % {"number": number})]
    host = _host_lines(page.lines)
    ending = next((line for line in host if line.startswith(GAME_OVER)), None)
    if ending is None or not page.closed_html:
        return None, [Problem("", _("the log of game %(number)d stops before the end of the game (no \"Игра "
                                    "окончена\" line or no end of the page): the page is truncated or the game "
                                    "is not over") % {"number": number})]
    problems: list[Problem] = []
    nicks = [seat.nick for seat in page.seats]
    for i, seat in enumerate(page.seats):
        if seat.role is None:
            problems.append(Problem(f"seats[{i}].role", _("%(nick)s: unknown role picture %(picture)r") % {
                "nick": seat.nick, "picture": seat.picture}))
        if seat.nick in nicks[:i]:
            problems.append(Problem(f"seats[{i}].player", _("%(nick)s has two seats in the seat table") % {
                "nick": seat.nick}))
    play = _play(host, nicks, problems)
    outcome = _outcome(ending[len(GAME_OVER):])
    if outcome is None:
        problems.append(Problem("outcome", _("the game ends with a line the portal does not know: %(line)r; "
                                             "enter this game by hand") % {"line": ending}))
    for i, seat in enumerate(page.seats):
        how = play.how_out.get(seat.nick)
        told = None if how == "timed_out" else how
        # the riot police's victim is shown killed in the seat table (game 3624505)
        agrees = told == seat.state or (seat.nick in play.riot_jailed and seat.state == "killed")
        if seat.nick not in play.timed_out and not agrees:
            problems.append(Problem(f"seats[{i}]", _(
                "%(nick)s: the seat table says %(table)s but the host's lines say %(lines)s") % {
                "nick": seat.nick, "table": seat.state or _("in the game"), "lines": told or _("in the game")}))
    link = page.canonical or page.og_url
    link_match = LINK.match(link.strip())
    if link_match is None or int(link_match.group(1)) != number:
        link = f"{SITE}{number}"
    maniac_seats = [seat for seat in page.seats if seat.role == "maniac"]
    seats = []
    for seat in page.seats:
        out = seat.nick in play.out_after_days
        seats.append({
            "player": seat.nick,
            "role": seat.role,
            "timed_out": seat.nick in play.timed_out,
            "days_played": play.out_after_days[seat.nick] if out else play.game_days,
            "maniac_kills": play.maniac_kills if seat.role == "maniac" and len(maniac_seats) == 1 else 0,
            "in_final_phase": seat.nick in play.phase_alive,
        })
    game = {
        "number": number, "status": "played", "outcome": outcome, "omon": play.omon,
        "game_days": play.game_days, "link": link.strip(), "seats": seats,
    }
    return game, problems


def log_number(link: str) -> int | None:
    """The site's game number a log link names (``…/log/3624027``), None for any other link."""
    match = LINK.match((link or "").strip())
    return int(match.group(1)) if match else None


def assign_teams(game: dict[str, Any], team_of: dict[str, str],
                 chosen: dict[str, str] | None = None) -> tuple[dict[str, Any], list[str]]:
    """The game object with each seat's ``team`` from the rosters (``team_of``: nick -> team), the
    organizer's ``chosen`` teams taking precedence, and the nicks no roster knows (their ``team`` is None)."""
    chosen = chosen or {}
    seats, unknown = [], []
    for seat in game["seats"]:
        team = chosen.get(seat["player"]) or team_of.get(seat["player"])
        if team is None:
            unknown.append(seat["player"])
        seats.append({"player": seat["player"], "team": team, **{k: v for k, v in seat.items() if k != "player"}})
    return {**game, "seats": seats}, unknown
