"""The time a query names ("on 10.01.2024", "in May 2023", "last week", "en mars", "on New
Year's Eve"), as a window of time recall favours (docs/recall.md). Pure: a query and the
time it is asked at (`now`: its `as_of`), in English and French.

A date without a year is the latest such date at or before `now`; "before X" is the days
leading up to X. A query naming no time, or one recall cannot place ("the day after the
concert"), has no window.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

MONTHS = {
    "january": 1, "jan": 1, "janvier": 1, "janv": 1,
    "february": 2, "feb": 2, "février": 2, "fevrier": 2, "févr": 2,
    "march": 3, "mar": 3, "mars": 3,
    "april": 4, "apr": 4, "avril": 4, "avr": 4,
    "may": 5, "mai": 5,
    "june": 6, "jun": 6, "juin": 6,
    "july": 7, "jul": 7, "juillet": 7, "juil": 7,
    "august": 8, "aug": 8, "août": 8, "aout": 8,
    "september": 9, "sep": 9, "sept": 9, "septembre": 9,
    "october": 10, "oct": 10, "octobre": 10,
    "november": 11, "nov": 11, "novembre": 11,
    "december": 12, "dec": 12, "décembre": 12, "decembre": 12, "déc": 12,
}
_MONTH = "(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th|er)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
# Days leading up to "before X" / "avant X" that the window covers.
BEFORE_DAYS = 14
DAY = 86_400.0
# Below this nearness a memory is too far from the time named to be looked for there.
NEAR = 0.05

# Each pattern: a regular expression (case-insensitive, on word boundaries) and whether its
# groups give a day, a month or a year.
_DATES = [
    re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>[01]?\d)-(?P<d>[0-3]?\d)\b"),
    re.compile(r"\b(?P<a>[0-3]?\d)(?P<sep>[./])(?P<b>[0-3]?\d)(?P=sep)(?P<y>(?:19|20)\d\d)\b"),
]
_NAMED = [
    re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?\b", re.I),
    re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?\b", re.I),
    re.compile(rf"\b{_MONTH}(?:,?\s+{_YEAR})\b", re.I),
]
_MONTH_ALONE = re.compile(rf"\b(?:in|en|during|pendant|au mois de|de)\s+{_MONTH}(?!\w)", re.I)
_YEAR_ALONE = re.compile(rf"\b(?:in|en|during|pendant)\s+{_YEAR}\b", re.I)
_BEFORE = re.compile(r"\b(?:before|avant|prior to|until|by)\s*$", re.I)
_AGO = re.compile(r"\b(?:(?P<n>\d+|a|an|one|two|three|four|five|six)\s+(?P<unit>day|week|month|"
                  r"year)s?\s+ago|il y a\s+(?P<nfr>\d+|un|une|deux|trois|quatre|cinq|six)\s+"
                  r"(?P<unitfr>jour|semaine|mois|an|année)s?)\b", re.I)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "un": 1, "une": 1, "two": 2, "deux": 2, "three": 3,
            "trois": 3, "four": 4, "quatre": 4, "five": 5, "cinq": 5, "six": 6}
_UNIT_DAYS = {"day": 1, "jour": 1, "week": 7, "semaine": 7, "month": 30, "mois": 30,
              "year": 365, "an": 365, "année": 365}


@dataclass(frozen=True)
class Window:
    """[start, end): the time a query names."""

    start: datetime
    end: datetime

    def nearness(self, moment: datetime, *, before_days: float, after_days: float) -> float:
        """1 within the window, fading as exp(-days away / the side's scale) outside it."""
        if moment < self.start:
            return math.exp(-(self.start - moment).total_seconds() / DAY / before_days)
        if moment >= self.end:
            return math.exp(-(moment - self.end).total_seconds() / DAY / after_days)
        return 1.0

    def widened(self, *, before_days: float, after_days: float) -> Window:
        """The window and the times near enough to it to count (nearness above NEAR)."""
        fade = -math.log(NEAR)
        return Window(self.start - timedelta(days=fade * before_days),
                      self.end + timedelta(days=fade * after_days))


def query_window(query: str, *, now: datetime) -> Window | None:
    """The time `query` names, or None."""
    today = now.astimezone(UTC).date()
    for find in (_numeric, _named, _relative, _holiday, _month_or_year):
        found = find(query, today)
        if found is not None:
            start, end, at = found
            if _BEFORE.search(query[:at]):
                start, end = start - timedelta(days=BEFORE_DAYS), start
            return Window(_midnight(start), _midnight(end))
    return None


_Found = tuple[date, date, int] | None


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _latest(month: int, day: int, today: date) -> date | None:
    """The latest `day` of `month` at or before today (a date said without its year)."""
    for year in (today.year, today.year - 1):
        found = _day(year, month, day)
        if found is not None and found <= today:
            return found
    return None


def _numeric(query: str, today: date) -> _Found:
    for pattern in _DATES:
        for match in pattern.finditer(query):
            groups = match.groupdict()
            if "d" in groups:
                found = _day(int(groups["y"]), int(groups["m"]), int(groups["d"]))
            else:
                a, b = int(groups["a"]), int(groups["b"])
                # 10.01.2024 is the 10th of January; 01/10/2024 the same unless its first
                # number cannot be a month.
                day_first = groups["sep"] == "." or a > 12
                found = _day(int(groups["y"]), b if day_first else a, a if day_first else b)
            if found is not None:
                return found, found + timedelta(days=1), match.start()
    return None


def _named(query: str, today: date) -> _Found:
    for pattern in _NAMED:
        for match in pattern.finditer(query):
            groups = match.groupdict()
            month = MONTHS[groups["month"].lower()]
            year = int(groups["year"]) if groups.get("year") else None
            if groups.get("day"):
                day = int(groups["day"])
                found = _day(year, month, day) if year else _latest(month, day, today)
                if found is not None:
                    return found, found + timedelta(days=1), match.start()
            elif year:
                return _month_span(year, month) + (match.start(),)
    return None


def _month_span(year: int, month: int) -> tuple[date, date]:
    start = date(year, month, 1)
    return start, date(year + month // 12, month % 12 + 1, 1)


_RELATIVE = [
    (re.compile(r"\b(?:yesterday|hier)\b", re.I), -1, 0),
    (re.compile(r"\b(?:today|tonight|this morning|aujourd'hui|ce matin|ce soir)\b", re.I), 0, 1),
    (re.compile(r"\b(?:last|past) week(?:end)?\b|\bla semaine (?:dernière|passée)\b", re.I),
     -7, 0),
    (re.compile(r"\bthis week\b|\bcette semaine\b", re.I), -6, 1),
    (re.compile(r"\b(?:recently|lately|récemment|dernièrement)\b", re.I), -14, 1),
]


def _relative(query: str, today: date) -> _Found:
    match = _AGO.search(query)
    if match is not None:
        count = match.group("n") or match.group("nfr")
        unit = (match.group("unit") or match.group("unitfr")).lower()
        n = int(count) if count.isdigit() else _NUMBERS.get(count.lower(), 1)
        days = n * _UNIT_DAYS[unit]
        middle = today - timedelta(days=days)
        slack = max(1, days // 4)
        return middle - timedelta(days=slack), middle + timedelta(days=slack + 1), match.start()
    for pattern, start, end in _RELATIVE:
        match = pattern.search(query)
        if match is not None:
            return today + timedelta(days=start), today + timedelta(days=end), match.start()
    match = _LAST_MONTH.search(query)
    if match is not None:
        year, month = (today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12)
        return _month_span(year, month) + (match.start(),)
    match = _LAST_YEAR.search(query)
    if match is not None:
        return date(today.year - 1, 1, 1), date(today.year, 1, 1), match.start()
    return None


# The calendar month and year before the one the query is asked in.
_LAST_MONTH = re.compile(r"\blast month\b|\ble mois (?:dernier|passé)\b", re.I)
_LAST_YEAR = re.compile(r"\blast year\b|\bl'(?:année|an) (?:dernière|dernier|passée)\b", re.I)


_HOLIDAYS = [
    (re.compile(r"\bnew year'?s eve\b|\ble réveillon du nouvel an\b|\bla saint-sylvestre\b",
                re.I), 12, 31, 1),
    (re.compile(r"\bnew year'?s day\b|\bjour de l'an\b", re.I), 1, 1, 1),
    (re.compile(r"\bnew year\b|\bnouvel an\b", re.I), 12, 31, 2),
    (re.compile(r"\bchristmas eve\b|\bréveillon de noël\b", re.I), 12, 24, 1),
    (re.compile(r"\bchristmas\b|\bnoël\b", re.I), 12, 24, 3),
]


def _holiday(query: str, today: date) -> _Found:
    year = re.search(_YEAR, query)
    for pattern, month, day, days in _HOLIDAYS:
        match = pattern.search(query)
        if match is None:
            continue
        # "the 2024 New Year" is the night 2023 ended.
        start = (_day(int(year.group("year")) - (month == 12 and days == 2), month, day)
                 if year else _latest(month, day, today))
        if start is not None:
            return start, start + timedelta(days=days), match.start()
    return None


def _month_or_year(query: str, today: date) -> _Found:
    match = _MONTH_ALONE.search(query)
    if match is not None:
        month = MONTHS[match.group("month").lower()]
        year = today.year if date(today.year, month, 1) <= today else today.year - 1
        return _month_span(year, month) + (match.start(),)
    match = _YEAR_ALONE.search(query)
    if match is not None:
        year = int(match.group("year"))
        return date(year, 1, 1), date(year + 1, 1, 1), match.start()
    return None
