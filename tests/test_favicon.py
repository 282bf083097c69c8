"""``/favicon.ico`` is served: browsers ask for it whatever the page links."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_favicon_ico_is_an_icon_served_without_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"
    assert "max-age=86400" in response["Cache-Control"]
    assert client.post("/favicon.ico").status_code == 405
