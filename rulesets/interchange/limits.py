"""The format's names and bounds: format identifiers, the keys each object may hold, and the limits of a
document (documented in docs/interchange-limits.md). Each ruleset's stage keys are its own (``Ruleset.stage_keys``)."""

from __future__ import annotations

from rulesets.facts import SEAT_FIELDS

FORMAT = "tournament-portal/1"
EXPORT_FORMAT = "tournament-portal/standings/1"

TOP_KEYS = {"format", "tournament", "players", "families", "teams", "stages", "penalties", "decisions", "appeals", "withdrawals"}
TOURNAMENT_KEYS = {"slug", "name", "ruleset", "timezone", "starts_on", "settings"}
PLAYER_KEYS = {"nick", "level", "disqualified", "family", "banned"}
FAMILY_KEYS = {"name", "head"}
TEAM_KEYS = {"name", "captain", "players", "league", "home_university", "family", "left_at"}
STAGE_KEYS_ALLOWED = {"key", "teams", "groups", "games", "tours", "seed"}
GROUP_KEYS = {"name", "teams"}
GAME_KEYS = {"number", "group", "round", "scheduled_at", "status", "outcome", "omon", "game_days", "link",
             "absent_teams", "no_show_eliminated", "seats", "result_recorded_at"}
SEAT_KEYS = {f.name for f in SEAT_FIELDS}  # rulesets.facts declares a seat's fields
TOUR_KEYS = {"number", "host", "played_on", "questions", "masks", "absent"}
PENALTY_KEYS = {"stage", "game", "team", "player", "kind", "code", "points", "decided_at", "published_at", "text"}
DECISION_KEYS = {"stage", "game", "kind", "code", "outcome", "decided_at", "published_at", "by", "text", "team",
                 "player", "order", "reason"}
DECISION_KINDS = ("technical_result", "replay", "disqualification", "tie_break", "qualify")
APPEAL_KEYS = {"stage", "tour", "question", "team", "kind", "answer", "filed_at", "verdict", "credited_teams",
               "decision", "penalty", "appellant", "claim", "text", "replacement", "decided_at"}
VERDICTS = ("accepted", "rejected", "partly")
WITHDRAWAL_KEYS = {"team", "at"}


# Limits of a document (documented in docs/interchange-limits.md). Where the spec gives a number it is cited;
# a length is what the database column holds; elsewhere the limit is generous and only stops a document that
# would tie the portal up (a count past any real tournament).
MAX_INT = 2**31 - 1  # PostgreSQL integer: every whole number the portal stores
MAX_NAME = 100  # nick, team, family, host, names in lists (accounts.Player.nick, tournaments.Team.name)
MAX_TOURNAMENT_NAME = 200  # tournaments.Tournament.name
MAX_TIMEZONE = 64  # tournaments.Tournament.timezone
MAX_GROUP_NAME = 20  # tournaments.Group.name
MAX_LINK = 500  # tournaments.Game.link
MAX_PENALTY_KIND = 30  # tournaments.Penalty.kind
MAX_PENALTY_CODE = 20  # tournaments.Penalty.code
MAX_DECISION_CODE = 30  # tournaments.Decision.code
MAX_SIGNATURE = 150  # Decision.by, Appeal.appellant
MAX_SEED = 100  # tournaments.Stage.seed
MAX_TEXT = 10_000  # free texts: penalty and decision texts, reasons, a team's answer
MAX_PLAYERS = 10_000  # the document's ``players`` list
MAX_FAMILIES = 1_000  # the document's ``families`` list
MAX_TEAMS = 200  # teams of a tournament or of a stage (CB-1: 14, GP-8: 9, FL-8: 21 a group)
MAX_ROSTER = 100  # players of one team (CHGK-1: 10, GP-8: 6; a family league family rarely 30)
MAX_GROUPS = 20  # groups of a stage (FL-8: setting ``groups``, default 2)
MAX_GROUP_TEAMS = 21  # FL-8: a group has at most 21 teams because a game holds at most 21 players
MAX_GAMES = 20_000  # games of a stage (CB-1: 48; FL-7: 30; synthetic benchmark leagues: 10,000)
MAX_SEATS = 21  # seats of a Mafia game (FL-8, FL-9: a game room holds 21 players; CB: 13; GP-9: 9)
MAX_GAME_DAYS = 100  # days of a Mafia game (a day jails a player: 21 players, far fewer days)
MAX_TOURS = MAX_TEAMS  # CHGK-7: every team hosts exactly one tour
MAX_QUESTIONS = 100  # questions of a tour (CHGK-8: 8; a mask holds one mark a question, tournaments.Mask.mask)
MAX_ITEMS = 10_000  # penalties, decisions, appeals of a document
MAX_ORDER = 1_000  # names in a tie_break decision's order
MIN_YEAR, MAX_YEAR = 1900, 2999  # dates and times (a deadline a few days on must not leave the calendar)
MAX_MOMENT_LENGTH = 40  # characters of an ISO 8601 date and time
MAX_DECIMAL_LENGTH = 40  # characters of a decimal amount
PENALTY_PLACES, PENALTY_BELOW = 3, 10**5  # tournaments.Penalty.points: 8 digits, 3 of them decimals
MAX_SETTINGS_DEPTH = 8  # nesting of tournament.settings (the deepest default table is 3 levels)
MAX_SETTINGS_VALUES = 10_000  # values in tournament.settings
MAX_SETTINGS_TEXT = 1_000  # characters of a string in tournament.settings
MAX_SETTINGS_NUMBER = 10**9  # magnitude of a number in tournament.settings (counts, points, prizes in mf)
SETTING_LIMITS = {"questions_per_tour": (MAX_QUESTIONS, "CHGK-8"), "groups": (MAX_GROUPS, "FL-8")}
MAX_TEXT_PROBLEMS = 50  # bad strings reported before the parser stops
MAX_DOCUMENT_DEPTH = 64  # nesting of a whole document the decoder gives up on (the format needs about 12)
