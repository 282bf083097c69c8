"""Readers of results as organizers already have them: pure parsers and the writes over them.

- ``mafiaonline_log``: a mafiaonline.ru "Лог партии" page -> one Mafia game object of the interchange;
- ``chgk_rating``: a rating-site response (v1 ``list``, rows or column-oriented; v2 ``results``) -> one ChGK
  tour object, its controversials and the site's positions;
- ``game_log_import``: the game log matched to a stage's rosters and written through
  ``tournaments.commands.record_game`` / ``update_game``;
- a season from the organizers' files: ``roster_file`` (the clan list ``Clan:nick, nick``, or CSV) and
  ``roster_import`` (into teams or families: ``add_team``, ``add_to_roster``, ``set_captain``); ``stage_list``
  (``Этап1:id,id,...``: a site's game -> its stage and number) and ``log_batch`` (many logs into a stage, each
  its own transaction, one recompute, one report); ``penalty_file`` (``game:clan:nick:reason:points``) and
  ``penalty_import`` (judges' penalties recorded, no-shows as FL-10, FL-15.1 and FL-16 read them).

The parsers are pure (text or JSON in, plain dicts and ``Problem`` lists out; only the stdlib), so they are
tested on the real files in ``tests/data/real/`` without a database.
"""
