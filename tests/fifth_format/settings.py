"""The project's settings with the fifth format installed (its app registers its ruleset and its home)."""

import os

from config.settings import *  # noqa: F403
from config.settings import DATABASES, INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tests.fifth_format"]
# its own test database beside the suite's (the suite may be running on the same server)
DATABASES["default"].setdefault("TEST", {})["NAME"] = f"test_fifth_format_{os.getpid()}" \
    if DATABASES["default"]["ENGINE"].endswith("postgresql") else None
