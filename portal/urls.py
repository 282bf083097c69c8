"""Site-wide pages (included at "" by config.urls); each format home adds its own (``formats.registry``)."""

from django.urls import include, path

from portal.views import (
    dashboard,
    entry,
    games,
    history,
    live,
    my,
    people,
    prizes,
    roles,
    rulebook,
    search,
    season_imports,
    selfservice,
    setup,
    structure,
    tournament,
)

urlpatterns = [
    path("", tournament.home_view, name="home"),
    path("players/<int:pk>/", people.player_view, name="player"),
    path("", include("portal.urls_careers")),  # /players/rankings/, the site-wide ranking by role
    path("t/<slug:slug>/", tournament.tournament_view, name="tournament"),
    path("t/<slug:slug>/schedule/", tournament.schedule_view, name="schedule"),
    path("t/<slug:slug>/rules/", rulebook.rulebook_view, name="tournament-rulebook"),
    path("t/<slug:slug>/standings/version/", live.standings_version_view, name="standings-version"),
    path("search/", search.search_view, name="search"),
    path("t/<slug:slug>/history/", history.history_view, name="history"),
    path("t/<slug:slug>/tours/<int:number>/", games.tour_view, name="tour"),
    path("t/<slug:slug>/teams/<int:pk>/", people.team_view, name="team"),
    path("t/<slug:slug>/<slug:stage_key>/games/<int:number>/", games.game_view, name="game"),
    path("t/<slug:slug>/prizes/", prizes.prizes_view, name="prizes"),
    path("t/<slug:slug>/tours/<int:number>/enter/", entry.tour_entry_view, name="tour-entry"),
    path("t/<slug:slug>/<slug:stage_key>/games/<int:number>/enter/", entry.game_entry_view, name="game-entry"),
    path("t/<slug:slug>/<slug:stage_key>/games/new/", entry.game_entry_view, name="game-new"),
    path("t/<slug:slug>/import/rosters/", season_imports.rosters_view, name="import-rosters"),
    path("t/<slug:slug>/import/games/", season_imports.game_logs_view, name="import-game-logs"),
    path("t/<slug:slug>/import/penalties/", season_imports.penalties_view, name="import-penalties"),
    path("accounts/my/", my.my_tournaments, name="my-tournaments"),
    path("accounts/claims/", selfservice.claims_view, name="claims"),
    path("accounts/players/merge/", selfservice.merge_view, name="player-merge"),
    path("accounts/dashboard/", dashboard.dashboards_view, name="dashboards"),
    path("accounts/dashboard/new/", setup.tournament_new_view, name="tournament-new"),  # before <slug>
    path("accounts/dashboard/<slug:slug>/", dashboard.dashboard_view, name="dashboard"),
    path("accounts/dashboard/<slug:slug>/rules/", dashboard.rules_view, name="tournament-rules"),
    path("accounts/dashboard/<slug:slug>/roles/", roles.roles_view, name="tournament-roles"),
    path("accounts/dashboard/<slug:slug>/structure/", structure.structure_view, name="tournament-structure"),
    path("", include("portal.views.webhooks")),  # a tournament's webhooks, the receivers' page
    path("api/v1/", include("portal.api.structure")),  # stages and tours written by the organizers
]
