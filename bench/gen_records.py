#!/usr/bin/env python3
"""A record-linkage benchmark with known truth, generated deterministically.

People (first name, last name, street address, city, zip) are drawn from
fixed lists with a fixed seed; some get duplicates, each a copy of the
original with the kinds of damage real entry data has:

  typo           one character replaced by a neighbour on a QWERTY keyboard
  transposition  two adjacent characters swapped
  deletion       one character dropped
  insertion      one character doubled
  missing        a field left empty
  abbreviation   "Street" -> "St", "Avenue" -> "Ave", ...
  nickname       a first name replaced by a common short form

Usage: gen_records.py OUTDIR [--people N] [--seed S] [--pools small|realistic]

--pools small (the default, what tests/records-data holds): 100 first names,
100 last names, 40 street names, 25 cities, drawn uniformly. Every pool is
fixed, so the records sharing a name, a street or a city grow as the square
of the people, and so do a scan's candidates.

--pools realistic: pools that grow with the people, drawn by rank as names
are (Zipf-like: the k-th most common with weight 1/(k + 10), so that the
most common holds a few percent, as James and Smith do): 5,000 first names
(the 100 above first, then made-up ones), max(2,000, N/5) last names (the
Census counts about 160,000 surnames held by 100 or more people in 330 M),
max(50, N/500) cities, each with its own 3-digit zip prefix, and
max(40, N/100) street names. Two unrelated people then share an address as
rarely as a town's households are many: a scan's candidates among whole
records grow about as the people do.

Writes (same bytes for the same N and seed, on any machine: only the
standard library's random.Random, whose sequence is fixed across versions
for the calls used here):

  OUTDIR/people.csv       id,first,last,street,city,zip  (dedupe: one file)
  OUTDIR/truth.csv        a,b: every pair of ids of one person (a < b as strings
                          sort in the file's order)
  OUTDIR/link_a.csv       the originals of every person
  OUTDIR/link_b.csv       one damaged copy of 60 % of them, plus new people
  OUTDIR/link_truth.csv   a,b: the pairs across the two files that are one person
"""

import argparse
import csv
import os
import random

FIRST = """James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth
David Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher
Nancy Daniel Lisa Matthew Betty Anthony Margaret Mark Sandra Donald Ashley Steven
Kimberly Paul Emily Andrew Donna Joshua Michelle Kenneth Dorothy Kevin Carol Brian
Amanda George Melissa Edward Deborah Ronald Stephanie Timothy Rebecca Jason Sharon
Jeffrey Laura Ryan Cynthia Jacob Kathleen Gary Amy Nicholas Shirley Eric Angela
Jonathan Helen Stephen Anna Larry Brenda Justin Pamela Scott Nicole Brandon Emma
Benjamin Samantha Samuel Katherine Gregory Christine Frank Debra Alexander Rachel
Raymond Catherine Patrick Carolyn Jack Janet Dennis Ruth Jerry Maria""".split()

LAST = """Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez
Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee
Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen
King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera
Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz
Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz
Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson
Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez
Castillo Sanders Patel Myers Long Ross Foster Jimenez""".split()

STREETS = """Main Oak Pine Maple Cedar Elm Washington Lake Hill Park Walnut Spring
North Ridge Church Willow Mill Sunset Railroad Jackson Highland Cherry Center
Meadow Forest River Lincoln Madison Adams Franklin Chestnut Dogwood Valley
Jefferson Hickory Laurel Birch Sycamore Poplar Spruce""".split()

KINDS = [("Street", "St"), ("Avenue", "Ave"), ("Road", "Rd"), ("Drive", "Dr"),
         ("Lane", "Ln"), ("Boulevard", "Blvd"), ("Court", "Ct"), ("Place", "Pl")]

CITIES = """Springfield Riverside Franklin Greenville Bristol Clinton Fairview Salem
Madison Georgetown Arlington Ashland Burlington Manchester Milton Newport Oxford
Dover Hudson Kingston Lexington Marion Auburn Dayton Jackson""".split()

NICK = {"William": "Bill", "Robert": "Bob", "Richard": "Dick", "James": "Jim",
        "Elizabeth": "Liz", "Margaret": "Maggie", "Jennifer": "Jen",
        "Michael": "Mike", "Thomas": "Tom", "Joseph": "Joe", "Daniel": "Dan",
        "Matthew": "Matt", "Christopher": "Chris", "Katherine": "Kate",
        "Patricia": "Pat", "Anthony": "Tony", "Samantha": "Sam", "Nicholas": "Nick",
        "Benjamin": "Ben", "Rebecca": "Becky", "Stephanie": "Steph", "Jonathan": "Jon",
        "Kimberly": "Kim", "Timothy": "Tim", "Deborah": "Debbie", "Edward": "Ed"}

QWERTY = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def neighbour(rng, c):
    low = c.lower()
    for row in QWERTY:
        i = row.find(low)
        if i >= 0:
            choices = [row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)]
            n = rng.choice(choices)
            return n.upper() if c.isupper() else n
    if c.isdigit():
        return str((int(c) + rng.choice((1, 9))) % 10)
    return c


def damage_text(rng, s):
    if len(s) < 3:
        return s
    i = rng.randrange(1, len(s) - 1)
    kind = rng.choice(("typo", "transposition", "deletion", "insertion"))
    if kind == "typo":
        return s[:i] + neighbour(rng, s[i]) + s[i + 1:]
    if kind == "transposition":
        return s[:i] + s[i + 1] + s[i] + s[i + 2:]
    if kind == "deletion":
        return s[:i] + s[i + 1:]
    return s[:i] + s[i] + s[i:]


FIELDS = ["first", "last", "street", "city", "zip"]


def damage(rng, person):
    p = dict(person)
    # One to three kinds of damage, never the same field emptied twice.
    for _ in range(rng.randint(1, 3)):
        what = rng.random()
        field = rng.choice(FIELDS)
        if what < 0.6:
            p[field] = damage_text(rng, p[field])
        elif what < 0.72:
            p[field] = ""
        elif what < 0.86:
            for long, short in KINDS:
                p["street"] = p["street"].replace(long, short)
        else:
            p["first"] = NICK.get(p["first"], p["first"])
    return p


def person(rng, pools=None):
    if pools is not None:
        return pools.person(rng)
    kind = rng.choice(KINDS)[0]
    return {
        "first": rng.choice(FIRST),
        "last": rng.choice(LAST),
        "street": f"{rng.randint(1, 9999)} {rng.choice(STREETS)} {kind}",
        "city": rng.choice(CITIES),
        "zip": f"{rng.randint(10000, 99999)}",
    }


SYLLABLES = """ba be bi bo da de di do fa fe fi ga ge go ha he hi ka ke ki ko la le
li lo lu ma me mi mo na ne ni no pa pe pi po ra re ri ro ru sa se si so ta te
ti to va ve vi wa we wi ya ze zo an ar el en er in on or ul us""".split()

ENDINGS = ["", "", "n", "s", "r", "l", "th", "ton", "ley", "son", "man", "berg",
           "ford", "wick", "ski", "ez", "er", "en"]


def made_up(rng, known, count):
    """`known` first, then made-up capitalised names until `count` in all,
    each once."""
    names, seen = list(known), set(known)
    while len(names) < count:
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
        name = (name + rng.choice(ENDINGS)).capitalize()
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


class Pools:
    """--pools realistic: pools sized by the people, drawn by Zipf rank."""

    def __init__(self, people, seed):
        rng = random.Random(seed * 7919 + 1)
        self.first = made_up(rng, FIRST, 5000)
        self.last = made_up(rng, LAST, max(2000, people // 5))
        self.streets = made_up(rng, STREETS, max(40, people // 100))
        self.cities = made_up(rng, CITIES, max(50, people // 500))
        # Each city its own zip prefix (a 3-digit area), as postal areas are.
        prefixes = rng.sample(range(100, 1000), min(900, len(self.cities)))
        self.prefix = [prefixes[i % len(prefixes)] for i in range(len(self.cities))]
        self.weights = {name: self.zipf(len(pool)) for name, pool in
                        [("first", self.first), ("last", self.last),
                         ("streets", self.streets), ("cities", self.cities)]}

    @staticmethod
    def zipf(n):
        total, cum = 0.0, []
        for k in range(1, n + 1):
            total += 1.0 / (k + 10)
            cum.append(total)
        return cum

    def pick(self, rng, name):
        pool = getattr(self, name)
        return rng.choices(pool, cum_weights=self.weights[name])[0]

    def person(self, rng):
        kind = rng.choice(KINDS)[0]
        city = rng.choices(range(len(self.cities)), cum_weights=self.weights["cities"])[0]
        return {
            "first": self.pick(rng, "first"),
            "last": self.pick(rng, "last"),
            "street": f"{rng.randint(1, 9999)} {self.pick(rng, 'streets')} {kind}",
            "city": self.cities[city],
            "zip": f"{self.prefix[city]}{rng.randint(0, 99):02d}",
        }


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--people", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--pools", choices=["small", "realistic"], default="small")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.outdir, exist_ok=True)
    pools = Pools(args.people, args.seed) if args.pools == "realistic" else None

    people = [person(rng, pools) for _ in range(args.people)]
    # Dedupe file: every person once, 40 % with 1-3 damaged copies, shuffled.
    rows = []
    for k, p in enumerate(people):
        rows.append((k, p))
        if rng.random() < 0.4:
            for _ in range(rng.randint(1, 3)):
                rows.append((k, damage(rng, p)))
    rng.shuffle(rows)
    ids = [f"r{n:06d}" for n in range(len(rows))]
    write(os.path.join(args.outdir, "people.csv"), ["id"] + FIELDS,
          [[i] + [p[f] for f in FIELDS] for i, (_, p) in zip(ids, rows)])
    by_person = {}
    for i, (k, _) in zip(ids, rows):
        by_person.setdefault(k, []).append(i)
    truth = sorted((min(a, b), max(a, b)) for members in by_person.values()
                   for x, a in enumerate(members) for b in members[x + 1:])
    write(os.path.join(args.outdir, "truth.csv"), ["a", "b"], truth)

    # Linkage: A holds the originals, B a damaged copy of 60 % plus others.
    a_rows = [(f"a{k:06d}", p) for k, p in enumerate(people)]
    b_rows, link = [], []
    for k, p in enumerate(people):
        if rng.random() < 0.6:
            b_rows.append((k, damage(rng, p)))
    b_rows += [(None, person(rng, pools)) for _ in range(args.people // 2)]
    rng.shuffle(b_rows)
    b_out = []
    for n, (k, p) in enumerate(b_rows):
        bid = f"b{n:06d}"
        b_out.append((bid, p))
        if k is not None:
            link.append((f"a{k:06d}", bid))
    write(os.path.join(args.outdir, "link_a.csv"), ["id"] + FIELDS,
          [[i] + [p[f] for f in FIELDS] for i, p in a_rows])
    write(os.path.join(args.outdir, "link_b.csv"), ["id"] + FIELDS,
          [[i] + [p[f] for f in FIELDS] for i, p in b_out])
    write(os.path.join(args.outdir, "link_truth.csv"), ["a", "b"], sorted(link))


if __name__ == "__main__":
    main()
