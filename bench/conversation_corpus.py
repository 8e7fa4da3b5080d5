"""Seeded long multi-session conversations between invented people, for
bench/recall_quality.py: hundreds of dated sessions, tens of thousands of turns, in which
people mention facts about their lives among small talk; facts change over time (a move, a
new job). Questions come with the turns that hold their evidence:

- single-hop: one turn answers ("What is the name of Mira's dog?");
- multi-hop: two turns about two facts must be joined ("Where does the person who works at
  Globex live?" needs who works there, and where they live);
- temporal: the answer depends on when ("Where did Mira live before she moved to Porto?").
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

SYLLABLES = ["ma", "ri", "ko", "len", "ta", "vo", "si", "ra", "del", "no", "bi", "zu", "fen",
             "lo", "mi", "ka", "tor", "el", "ja", "ru"]
CITIES = ["Porto", "Tallinn", "Bergen", "Ghent", "Trieste", "Leeds", "Graz", "Malmö", "Bilbao",
          "Aarhus", "Turku", "Brno"]
EMPLOYERS = ["Globex", "Initech", "Hooli", "Vandelay", "Soylent", "Tyrell", "Wonka", "Cyberdyne",
             "Massive Dynamic", "Gringotts", "Oscorp", "Pied Piper", "Aperture", "Monarch",
             "Blue Sun", "Nakatomi"]
JOBS = ["data engineer", "nurse", "carpenter", "teacher", "pilot", "architect", "chef"]
PETS = ["dog", "cat", "parrot", "rabbit"]
PET_NAMES = ["Pixel", "Nougat", "Biscuit", "Ziggy", "Mochi", "Pepper", "Tofu", "Caramel",
             "Waffle", "Juniper"]
HOBBIES = ["pottery", "bouldering", "birdwatching", "salsa dancing", "chess", "sailing"]
SMALL_TALK = [
    "how was your weekend?", "the weather has been awful lately", "I watched a great film",
    "did you try the new bakery?", "traffic was terrible this morning", "I'm so tired today",
    "we should grab lunch sometime", "I finally fixed my bike", "my phone keeps crashing",
    "have you read anything good?", "the train was late again", "I need a holiday",
    "that meeting could have been an email", "I started a new series", "it's my turn to cook",
    "I lost my umbrella again", "the kids loved the museum", "I'm learning to bake bread",
    "haha yes exactly", "oh really? tell me more", "that sounds fun", "sure, see you then",
]


@dataclass(frozen=True)
class Turn:
    source_id: str
    speaker: str
    text: str
    at: datetime


@dataclass(frozen=True)
class Question:
    kind: str  # single-hop | multi-hop | temporal
    text: str
    evidence: tuple[str, ...]  # source ids of the turns that hold the answer


@dataclass
class Person:
    name: str
    cities: list[tuple[int, str]] = field(default_factory=list)  # (session, city)
    jobs: list[tuple[int, str, str]] = field(default_factory=list)  # (session, job, employer)
    pet: tuple[str, str] = ("dog", "Pixel")
    hobby: str = ""
    said: dict[str, str] = field(default_factory=dict)  # fact -> source id of its turn


def _names(rng: random.Random, count: int) -> list[str]:
    names: set[str] = set()
    while len(names) < count:
        names.add("".join(rng.choice(SYLLABLES) for _ in range(2)).capitalize())
    return sorted(names)


def _people(rng: random.Random, count: int, sessions: int) -> list[Person]:
    people = []
    cities, employers = CITIES[:], EMPLOYERS[:]
    rng.shuffle(cities)
    rng.shuffle(employers)
    for i, name in enumerate(_names(rng, count)):
        person = Person(name=name, pet=(rng.choice(PETS), PET_NAMES[i % len(PET_NAMES)]),
                        hobby=rng.choice(HOBBIES))
        person.cities = [(0, cities[i % len(cities)]),
                         (rng.randint(sessions // 3, 2 * sessions // 3),
                          cities[(i + count) % len(cities)])]
        person.jobs = [(rng.randint(1, sessions // 4), rng.choice(JOBS),
                        employers[i % len(employers)])]
        people.append(person)
    return people


def _fact_lines(person: Person, session: int) -> list[tuple[str, str]]:
    """(fact id, utterance) this person may say in this session."""
    lines = []
    (_, first), (moved, second) = person.cities
    if session < moved:
        lines.append(("city0", f"I've been living in {first} for years now"))
    else:
        lines.append(("city1", f"big news: I moved to {second} recently!"))
    for start, job, employer in person.jobs:
        if session >= start:
            lines.append(("job", f"I just started at {employer} as a {job}"))
    kind, pet = person.pet
    lines.append(("pet", f"my {kind} {pet} chewed my shoes again"))
    lines.append(("hobby", f"I've really got into {person.hobby} recently"))
    return lines


def conversations_make(*, sessions: int, turns: int, people: int, seed: int,
                       speaker_in_text: bool = True) -> tuple[list[Turn], list[Question]]:
    """`speaker_in_text=False`: a turn's text is only what was said (its speaker is the
    turn's `speaker`, posted as the memory's actor), as in most conversation datasets."""
    rng = random.Random(seed)
    cast = _people(rng, people, sessions)
    start = datetime(2025, 1, 6, 19, 0, tzinfo=UTC)
    out: list[Turn] = []
    for s in range(sessions):
        a, b = rng.sample(cast, 2)
        at = start + timedelta(days=2 * s)
        pending = {p.name: [f for f in _fact_lines(p, s) if f[0] not in p.said] for p in (a, b)}
        for t in range(turns):
            speaker = a if t % 2 == 0 else b
            facts = pending[speaker.name]
            if facts and rng.random() < 0.15:
                fact, text = facts.pop(rng.randrange(len(facts)))
                speaker.said.setdefault(fact, f"s{s}-t{t}")
            else:
                text = rng.choice(SMALL_TALK)
            said = f"{speaker.name}: {text}" if speaker_in_text else text
            out.append(Turn(source_id=f"s{s}-t{t}", speaker=speaker.name, text=said,
                            at=at + timedelta(minutes=t)))
    return out, _questions(cast)


def _questions(cast: list[Person]) -> list[Question]:
    questions = []
    employers = [p.jobs[0][2] for p in cast]
    for p in cast:
        said = p.said
        if "pet" in said:
            questions.append(Question("single-hop", f"What is the name of {p.name}'s "
                                      f"{p.pet[0]}?", (said["pet"],)))
        if "hobby" in said:
            questions.append(Question("single-hop", f"What hobby has {p.name} taken up?",
                                      (said["hobby"],)))
        if "job" in said and "city1" in said and employers.count(p.jobs[0][2]) == 1:
            employer = p.jobs[0][2]
            questions.append(Question(
                "multi-hop", f"Which city did the person who works at {employer} move to?",
                (said["job"], said["city1"])))
        if "city0" in said and "city1" in said:
            questions.append(Question(
                "temporal", f"Where did {p.name} live before moving to {p.cities[1][1]}?",
                (said["city0"], said["city1"])))
        if "job" in said:
            questions.append(Question("temporal", f"When did {p.name} start the new job?",
                                      (said["job"],)))
    return questions
