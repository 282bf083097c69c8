"""Readers of results as organizers already have them (issue 18): pure parsers and the writes over them.

- ``mafiaonline_log``: a mafiaonline.ru "Лог партии" page -> one Mafia game object of the interchange;
- ``chgk_rating``: a rating-site response (v1 ``list``, rows or column-oriented; v2 ``results``) -> one ChGK
  tour object, its controversials and the site's positions;
- ``game_log_import``: the game log matched to a stage's rosters and written through
  ``tournaments.commands.record_game`` / ``update_game``.

The parsers are pure (text or JSON in, plain dicts and ``Problem`` lists out; only the stdlib), so they are
tested on the real files in ``tests/data/real/`` without a database.
"""
