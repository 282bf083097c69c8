"""A stage and what it holds: groups (FL-8), Mafia games with their seats, ChGK tours with their masks
(CHGK-7, CHGK-8), the seed (CB-2), and the order of play of the stages."""

from __future__ import annotations

from typing import Any

import rulesets
from rulesets.facts import (
    GAME_STATUSES,
    MASK_CHARS,
    OUTCOMES,
    ROLES,
    SEAT_FLAGS,
    Game,
    Group,
    Seat,
    Stage,
    Team,
    Tour,
    flagged_seat_maker,
)
from rulesets.interchange.limits import (
    GAME_KEYS,
    GROUP_KEYS,
    MAX_GAME_DAYS,
    MAX_GAMES,
    MAX_GROUP_NAME,
    MAX_GROUP_TEAMS,
    MAX_GROUPS,
    MAX_INT,
    MAX_NAME,
    MAX_QUESTIONS,
    MAX_SEATS,
    MAX_SEED,
    MAX_TEAMS,
    MAX_TOURS,
    SEAT_KEYS,
    STAGE_KEYS_ALLOWED,
    TOUR_KEYS,
)
from rulesets.interchange.reader import Reader, _bad_text, _stage_name
from rulesets.interchange.teams import _parse_teams
from rulesets.messages import text as _

# A game's status and a decision's kind are said in the sentence itself (one message each: a translation words
# them as its language needs).
_NEEDS_OUTCOME = {"played": _("a played game needs an outcome"),
                  "technical": _("a technical game needs an outcome")}
_NO_OUTCOME = {"scheduled": _("a scheduled game has no outcome"),
               "not_held": _("a not_held game has no outcome"),
               "annulled": _("a annulled game has no outcome")}
_NO_SEATS = {"scheduled": _("a scheduled game has no seats"),
             "not_held": _("a not_held game has no seats"),
             "annulled": _("a annulled game has no seats")}


def _parse_stage(r: Reader, raw: Any, path: str, key: str) -> Stage | None:
    """A stage of the ruleset ``key``: its teams (where teams are drawn per stage, GP-8), groups, games or tours
    (as the ruleset's rounds are), and seed."""
    ruleset = rulesets.get(key)
    s = r.obj(raw, path, STAGE_KEYS_ALLOWED, {"key"})
    if s is None:
        return None
    stage_key = r.choice(s.get("key"), f"{path}.key", ruleset.stage_keys)
    if stage_key is None:
        return None
    teams: list[Team] = []
    if ruleset.teams_per_stage:
        teams = _parse_teams(r, s.get("teams"), f"{path}.teams", key)
    elif s.get("teams") is not None:
        r.fail(f"{path}.teams", _("%(ruleset)s lists its teams at the top level", ruleset=key))
    groups = _parse_groups(r, s.get("groups"), path)
    games: list[Game] = []
    tours: list[Tour] = []
    if ruleset.rounds == "games":
        games = _parse_games(r, s, path)
    else:
        tours = _parse_tours(r, s, path)
    seed = _parse_seed(r, s.get("seed"), f"{path}.seed")
    return Stage(key=stage_key, teams=tuple(teams), groups=tuple(groups), games=tuple(games),
                 tours=tuple(tours), seed=None if seed is None else str(seed))


def _parse_groups(r: Reader, value: Any, path: str) -> list[Group]:
    """A stage's groups, each of at most 21 teams (FL-8)."""
    groups: list[Group] = []
    for i, g in enumerate(r.lst(value, f"{path}.groups", MAX_GROUPS)):
        gpath = f"{path}.groups[{i}]"
        gd = r.obj(g, gpath, GROUP_KEYS, {"name", "teams"})
        if gd is None:
            continue
        gname = gd.get("name")
        if isinstance(gname, int) and not isinstance(gname, bool):
            gname = str(gname)
        gname = r.string(gname, f"{gpath}.name", limit=MAX_GROUP_NAME)
        gteams = r.names(gd.get("teams"), f"{gpath}.teams", MAX_GROUP_TEAMS)  # FL-8
        if gname is not None:
            groups.append(Group(name=gname, teams=gteams))
    return groups


def _parse_games(r: Reader, s: dict, path: str) -> list[Game]:
    """A Mafia stage's games, each number once."""
    if s.get("tours") is not None:
        r.fail(f"{path}.tours", _("a Mafia stage has games, not tours"))
    games: list[Game] = []
    numbers: set[int] = set()
    for i, g in enumerate(r.lst(s.get("games"), f"{path}.games", MAX_GAMES)):
        game = parse_game(r, g, f"{path}.games[{i}]")
        if game is None:
            continue
        if game.number in numbers:
            r.fail(f"{path}.games[{i}].number", _("game number %(number)s is used twice in this stage",
                                                  number=game.number))
            continue
        numbers.add(game.number)
        games.append(game)
    return games


def _parse_tours(r: Reader, s: dict, path: str) -> list[Tour]:
    """A ChGK stage's tours, each number once."""
    if s.get("games") is not None:
        r.fail(f"{path}.games", _("a ChGK stage has tours, not games"))
    tours: list[Tour] = []
    numbers: set[int] = set()
    for i, t in enumerate(r.lst(s.get("tours"), f"{path}.tours", MAX_TOURS)):
        tour = parse_tour(r, t, f"{path}.tours[{i}]")
        if tour is None:
            continue
        if tour.number in numbers:
            r.fail(f"{path}.tours[{i}].number", _("tour number %(number)s is used twice", number=tour.number))
            continue
        numbers.add(tour.number)
        tours.append(tour)
    return tours


def _parse_seed(r: Reader, seed: Any, path: str) -> str | int | None:
    """A stage's seed: a string or an integer (CB-2: anyone can re-run a published draw), or None."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (str, int))):
        r.fail(path, _("must be a string or an integer"))
        seed = None
    elif isinstance(seed, int) and seed.bit_length() > 256:
        r.fail(path, _("the number is too long for a seed"))
        seed = None
    elif isinstance(seed, str):
        seed = r.string(seed, path, allow_empty=True, limit=MAX_SEED)
    return seed


def _check_stage_order(r: Reader, stages: list[Stage], key: str) -> None:
    order = rulesets.get(key).stage_keys
    seen: list[str] = []
    for i, stage in enumerate(stages):
        if stage.key in seen:
            r.fail(f"stages[{i}].key", _("stage '%(stage)s' is listed twice", stage=stage.key))
        elif seen and order.index(stage.key) < order.index(seen[-1]):
            r.fail(f"stages[{i}].key", _("stage '%(stage)s' comes before '%(previous)s' in order of play",
                                         stage=stage.key, previous=_stage_name(seen[-1])))
        seen.append(stage.key)


def parse_game(r: Reader, raw: Any, path: str) -> Game | None:
    """A Mafia game (spec/interchange.md, "Mafia game"): its status and outcome, seats and no-shows; None when
    refused."""
    g = r.obj(raw, path, GAME_KEYS, {"number"})
    if g is None:
        return None
    number = r.integer(g.get("number"), f"{path}.number", required=True, minimum=1)
    status = r.choice(g.get("status", "played"), f"{path}.status", GAME_STATUSES) or "played"
    outcome = r.choice(g.get("outcome"), f"{path}.outcome", OUTCOMES, required=False)
    if status in ("played", "technical") and outcome is None and g.get("outcome") is None:
        r.fail(f"{path}.outcome", _NEEDS_OUTCOME[status])
    if status not in ("played", "technical") and outcome is not None:
        r.fail(f"{path}.outcome", _NO_OUTCOME[status])
    group = g.get("group")
    if isinstance(group, int) and not isinstance(group, bool):
        group = str(group)
    group = r.string(group, f"{path}.group", required=False, limit=MAX_GROUP_NAME)
    raw_seats = r.lst(g.get("seats"), f"{path}.seats", MAX_SEATS)  # FL-8, FL-9: 21 players a game
    if raw_seats and status not in ("played", "technical"):
        r.fail(f"{path}.seats", _NO_SEATS[status])
    game_days = r.integer(g.get("game_days"), f"{path}.game_days", minimum=0, maximum=MAX_GAME_DAYS)
    seats = _parse_seats(r, raw_seats, path, game_days)
    no_show: list[tuple[str, str]] = []
    raw_ns = r.mapping(g.get("no_show_eliminated"), f"{path}.no_show_eliminated", _("team: player"), MAX_TEAMS)
    for team, player in raw_ns.items():
        p = r.string(player, f"{path}.no_show_eliminated.{team}")
        if p is not None:
            no_show.append((team, p))
    recorded_at = r.datetime(g.get("result_recorded_at"), f"{path}.result_recorded_at")
    if recorded_at is not None and status == "scheduled":
        r.fail(f"{path}.result_recorded_at", _("a scheduled game has no result yet"))
    if number is None:
        return None
    return Game(
        result_recorded_at=recorded_at,
        number=number, status=status, outcome=outcome, group=group,
        round=r.integer(g.get("round"), f"{path}.round", minimum=1, maximum=MAX_GAMES),
        scheduled_at=r.datetime(g.get("scheduled_at"), f"{path}.scheduled_at"),
        omon=r.boolean(g.get("omon"), f"{path}.omon"),
        game_days=game_days,
        link=r.link(g.get("link"), f"{path}.link"),
        absent_teams=r.names(g.get("absent_teams"), f"{path}.absent_teams"),
        no_show_eliminated=tuple(no_show),
        seats=tuple(seats),
    )


def _parse_seats(r: Reader, raw_seats: list, path: str, game_days: int | None) -> list[Seat]:
    """A game's seats, one a player: a plainly valid seat in one pass (``_plain_seat``), any other value by value
    (``_read_seat``)."""
    seats: list[Seat] = []
    seen_players: set[str] = set()
    for i, s in enumerate(raw_seats):
        seat = _plain_seat(s, game_days, r.plain_names)
        if seat is not None and seat.player not in seen_players:
            seen_players.add(seat.player)
            seats.append(seat)
            r.clean_seats += 1
            continue
        seat = _read_seat(r, s, f"{path}.seats[{i}]", game_days, seen_players)
        if seat is not None:
            seats.append(seat)
    return seats


def _read_seat(r: Reader, s: Any, spath: str, game_days: int | None, seen_players: set[str]) -> Seat | None:
    """A seat read value by value, naming each problem; None when refused (a player seated twice among them)."""
    sd = r.obj(s, spath, SEAT_KEYS, {"player", "team", "role"})
    if sd is None:
        return None
    player = r.string(sd.get("player"), f"{spath}.player")
    team = r.string(sd.get("team"), f"{spath}.team")
    role = r.choice(sd.get("role"), f"{spath}.role", ROLES)
    stats = r.integer(sd.get("stats"), f"{spath}.stats", minimum=0)
    days_played = r.integer(sd.get("days_played"), f"{spath}.days_played", minimum=0, maximum=MAX_GAME_DAYS)
    kills = r.integer(sd.get("maniac_kills"), f"{spath}.maniac_kills", minimum=0, maximum=MAX_SEATS - 1) or 0
    if player is None or team is None or role is None:
        return None
    if player in seen_players:
        r.fail(f"{spath}.player", _("%(player)s already has a seat in this game", player=player))
        return None
    seen_players.add(player)
    if kills and role != "maniac":
        r.fail(f"{spath}.maniac_kills", _("%(player)s has kills but is not the maniac", player=player))
    if days_played is not None and game_days is not None and days_played > game_days:
        r.fail(f"{spath}.days_played", _("%(value)s is greater than the game's game_days %(game_days)s",
                                           value=days_played, game_days=game_days))
    return Seat(player=player, team=team, role=role, stats=stats, days_played=days_played, maniac_kills=kills,
                **{name: r.boolean(sd.get(name), f"{spath}.{name}") for name in SEAT_FLAGS})


_ROLE_SET = frozenset(ROLES)


# the seat from the values ``_plain_seat`` reads by name, with every flag read and checked (a seat field of
# another kind than a flag is read by name here and in ``_read_seat``)
_flagged_seat = flagged_seat_maker(("player", "team", "role", "stats", "days_played", "maniac_kills"))


def _plain_seat(s: Any, game_days: int | None, names: set[str]) -> Seat | None:
    """The seat, when it is plainly valid: known keys only, each value of its type and within its bounds, kills only
    for the maniac, days within the game's, names of storable text (``text_problems``). Else None, and
    ``parse_game`` reads it value by value, naming each problem. Only a speed-up: it accepts nothing the full
    reading would refuse (a 10,000-game league has 150,000 seats, and a few hundred names: ``names`` holds those
    already found storable, so each is checked once)."""
    if type(s) is not dict or not s.keys() <= SEAT_KEYS:
        return None
    get = s.get
    player, team, role = get("player"), get("team"), get("role")
    if (type(player) is not str or type(team) is not str or type(role) is not str or role not in _ROLE_SET
            or (player not in names and not _storable_name(player, names))
            or (team not in names and not _storable_name(team, names))):
        return None
    stats, days, kills = get("stats"), get("days_played"), get("maniac_kills")
    if not (stats is None or (type(stats) is int and 0 <= stats <= MAX_INT)):
        return None
    if days is not None and (type(days) is not int or not 0 <= days <= MAX_GAME_DAYS
                             or (game_days is not None and days > game_days)):
        return None
    if kills is None:
        kills = 0
    elif type(kills) is not int or not 0 <= kills <= MAX_SEATS - 1 or (kills and role != "maniac"):
        return None
    return _flagged_seat(get, player, team, role, stats, days, kills)


def _storable_name(name: str, names: set[str]) -> bool:
    """Whether a seat's player or team name is plainly valid (not blank, within its length, storable text); a valid
    one joins ``names``."""
    if (len(name) > MAX_NAME or not name.strip() or "\x00" in name
            or (not name.isascii() and _bad_text(name))):
        return False
    names.add(name)
    return True


def parse_tour(r: Reader, raw: Any, path: str) -> Tour | None:
    """A ChGK tour (spec/interchange.md, "ChGK tour"): its host, questions and masks, one mark a question
    (CHGK-7, CHGK-8); None when refused."""
    t = r.obj(raw, path, TOUR_KEYS, {"number"})
    if t is None:
        return None
    number = r.integer(t.get("number"), f"{path}.number", required=True, minimum=1)
    questions = r.integer(t.get("questions"), f"{path}.questions", minimum=1, maximum=MAX_QUESTIONS)  # CHGK-8
    if t.get("questions") is not None and questions is None:
        return None
    masks_raw = r.mapping(t.get("masks") or None, f"{path}.masks", _("team: mask"), MAX_TEAMS)
    masks: list[tuple[str, str]] = []
    for team, mask in masks_raw.items():
        mpath = f"{path}.masks.{team}"
        if not isinstance(mask, str):
            r.fail(mpath, _("must be a string of 1, 0, X and ?"))
            continue
        if len(mask) > MAX_QUESTIONS:
            r.fail(mpath, _("%(count)s marks; a tour has at most %(limit)s questions", count=len(mask),
                              limit=MAX_QUESTIONS))
            continue
        bad = next((i for i, c in enumerate(mask) if c not in MASK_CHARS), None)
        if bad is not None:
            r.fail(mpath, _("%(team)s: question %(question)s has %(mark)s; a mask holds only 1, 0, X and ?", team=team,
                              question=bad + 1, mark=repr(mask[bad])))
            continue
        masks.append((team, mask))
    if questions is None:
        questions = len(masks[0][1]) if masks else None
    if questions is None:
        r.fail(f"{path}.questions", _("is required when no mask gives the count"))
        return None
    for team, mask in masks:
        if len(mask) != questions:
            r.fail(f"{path}.masks.{team}", _("%(team)s: the mask has %(count)s marks for %(questions)s questions",
                                               team=team, count=len(mask), questions=questions))
    for q in range(questions):
        removed = [mask[q] == "X" for _team, mask in masks if len(mask) == questions]
        if any(removed) and not all(removed):
            r.fail(f"{path}.masks", _("question %(question)s is X in some masks only; a removed question is X in "
                                      "every mask", question=q + 1))
    if number is None:
        return None
    return Tour(number=number, host=r.string(t.get("host"), f"{path}.host", required=False),
                questions=questions, played_on=r.date(t.get("played_on"), f"{path}.played_on"),
                masks=tuple(masks), absent=r.names(t.get("absent"), f"{path}.absent"))
