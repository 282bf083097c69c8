"""A user's time zone, with the portal's default (Europe/Moscow) for an unknown one."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Iterable

from django.utils import timezone
from django.utils.formats import date_format


def zone_of(name: str | None) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name or "Europe/Moscow")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("Europe/Moscow")


def zone_caption(zone_name: str, at: dt.datetime | None = None) -> str:
    """"Europe/Moscow (MSK, UTC+03:00)": the zone named, its abbreviation and offset at ``at``."""
    try:
        zone = zoneinfo.ZoneInfo(zone_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zone_name
    moment = (at or timezone.now()).astimezone(zone)
    offset = moment.utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    abbreviation = moment.tzname() or ""
    utc = f"UTC{sign}{hours:02d}:{rest:02d}"
    if abbreviation and not abbreviation.startswith(("+", "-")) and abbreviation != "UTC":
        return f"{zone_name} ({abbreviation}, {utc})"
    return f"{zone_name} ({utc})"


def zones_caption(zone_name: str, moments: Iterable[dt.datetime | dt.date | None]) -> str:
    """The zone as it was at the moments a page shows (a 2013 schedule says UTC+04:00, not today's
    UTC+03:00): one caption per distinct offset, in order; today's when the page shows no moment."""
    try:
        zone = zoneinfo.ZoneInfo(zone_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zone_name
    captions: list[str] = []
    for moment in moments:
        if moment is None:
            continue
        if not isinstance(moment, dt.datetime):
            moment = dt.datetime.combine(moment, dt.time(12), tzinfo=zone)
        caption = zone_caption(zone_name, moment)
        if caption not in captions:
            captions.append(caption)
    return "; ".join(captions) if captions else zone_caption(zone_name)


MOMENT_FORMAT = "j E Y, H:i"  # the one style of a moment on pages and in messages (the month's name per language)


def moment_text(value: dt.datetime | None, zone_name: str | None, *, with_zone: bool = True) -> str:
    """A moment as people read it, in the active language and the given zone: "8 сентября 2014, 19:00
    (Europe/Moscow)"; "—" for none."""
    if value is None:
        return "—"
    zone = zone_of(zone_name)
    text = date_format(value.astimezone(zone), MOMENT_FORMAT)
    return f"{text} ({zone.key})" if with_zone else text
