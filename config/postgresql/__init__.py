"""Django's PostgreSQL backend with a quicker reader of ``timestamptz`` values (``base.DatabaseWrapper``)."""
