"""The API's JSON is encoded by orjson (``portal.api.renderers.JSONRenderer``) and is the same
document Django REST framework's own renderer gives."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import renderers as drf
from rest_framework.test import APIClient

from portal.api.renderers import JSONRenderer
from tournaments.importer import import_document
from tournaments.synthetic import mafia_league

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)  # any character a database stores
ORDINARY_FLOAT = st.integers(-10 ** 7, 10 ** 7).map(lambda n: n / 8)  # points, fines, ratings: eighths and halves
SCALARS = st.none() | st.booleans() | st.integers(-2 ** 63, 2 ** 63 - 1) | ORDINARY_FLOAT | TEXT


def documents(scalars):
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                        max_leaves=25)


def both(data, media_type: str | None = None) -> tuple[bytes, bytes]:
    return JSONRenderer().render(data, media_type), drf.JSONRenderer().render(data, media_type)


@settings(max_examples=300, deadline=None)
@given(documents(SCALARS))
def test_the_same_bytes_as_drf_for_any_document_of_plain_values(data):
    ours, theirs = both(data)
    assert ours == theirs


@settings(max_examples=200, deadline=None)
@given(documents(SCALARS | st.floats(allow_nan=False, allow_infinity=False)))
def test_the_same_document_as_drf_for_any_finite_float(data):
    """A float below 1e-4 may be written positionally (0.00001 for 1e-05): the same number once read."""
    ours, theirs = both([data])
    assert json.loads(ours) == json.loads(theirs)


def test_dates_decimals_lazy_texts_and_line_separators_as_drf_writes_them():
    data = {"at": dt.datetime(2014, 9, 1, 20, 0, tzinfo=dt.UTC), "on": dt.date(2014, 9, 1),
            "time": dt.time(20, 30), "local": dt.datetime(2014, 9, 1, 23, 0, tzinfo=dt.timezone(dt.timedelta(hours=4))),
            "long": dt.timedelta(hours=2), "points": Decimal("12.500"), "id": uuid.UUID(int=7),
            "label": gettext_lazy("Tournaments"), "text": "a\u2028b\u2029c", "tuple": (1, "two")}
    ours, theirs = both(data)
    assert ours == theirs
    assert b"\\u2028" in ours and b'"at":"2014-09-01T20:00:00Z"' in ours


@pytest.mark.parametrize("data, media_type", [
    ({"big": 2 ** 70}, None),  # beyond 64 bits: DRF's encoder writes it
    ({1: "a", None: "b"}, None),  # keys that are not strings: DRF's encoder writes them as JSON keys
    ({"a": [1, 2]}, "application/json; indent=4"),  # an indent asked for in Accept
])
def test_what_orjson_does_not_take_goes_through_drfs_renderer(data, media_type):
    ours, theirs = both(data, media_type)
    assert ours == theirs


def test_no_data_is_an_empty_body():
    assert JSONRenderer().render(None) == b""


@pytest.mark.django_db
def test_the_games_api_answers_through_the_orjson_renderer_with_drfs_document():
    import_document(mafia_league(games=12, seed=3, slug="fl-json"))
    response = APIClient(REMOTE_ADDR="10.21.0.1").get("/api/v1/games/?tournament=fl-json&page_size=200")
    assert response.status_code == 200
    assert isinstance(response.accepted_renderer, JSONRenderer)
    assert response.content == drf.JSONRenderer().render(response.data)
    assert len(response.json()["results"]) == 12
