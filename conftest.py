"""The fixtures of tests/conftest.py for every test of the project, the format homes' own tests included."""

from tests.conftest import *  # noqa: F403
