"""The fixtures of tests/conftest.py for every test of the project, the format homes' own tests included.

``import *`` leaves out the autouse fixtures whose names start with an underscore (eager Celery, the empty
caches): they are named here so that a home's tests run exactly as the others do.
"""

from tests.conftest import *  # noqa: F403
from tests.conftest import (  # noqa: F401
    _eager_unless_real_worker,
    _empty_local_standings_cache,
    _fast_password_hasher,
    _game_cache_for_every_tournament,
    _webhook_receivers_on_this_machine,
)
