"""A small fifth format, a Swiss-system Mafia league, that lives only here (its ruleset and its home).

``tests/test_fifth_format.py`` runs ``check_fifth_format.py`` under ``tests.fifth_format.settings`` (the project's
settings with this app installed) and checks that no file outside this package names the format: adding a
format is its ruleset package and its format home, nothing else.
"""
