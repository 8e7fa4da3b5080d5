"""Seeded generators for bench/recall_quality.py: planted facts with paraphrased questions in
English and French, among distractor memories drawn from the same vocabulary (the same
people, the same kinds of facts about other people, everyday notes)."""

from __future__ import annotations

import random
from dataclasses import dataclass

FIRST = ["Anya", "Bruno", "Chloé", "Dmitri", "Emma", "Farid", "Greta", "Hugo", "Inès", "Jonas",
         "Kenji", "Léa", "Marco", "Nadia", "Omar", "Paula", "Quentin", "Rosa", "Sven", "Tara",
         "Ulla", "Victor", "Wendy", "Xavier", "Yasmin", "Zoltan"]
LAST = ["Petrova", "Dupont", "Bernard", "Ivanov", "Wilson", "Haddad", "Berg", "Moreau", "Silva",
        "Keller", "Novak", "Laurent", "Okafor", "Tanaka", "Rossi", "Lindqvist"]
PLACES = ["Paris", "Lyon", "Berlin", "London", "Lisbon", "Tokyo", "Montreal", "Geneva", "Porto",
          "Oslo", "Nantes", "Seville"]
ORGS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne"]
PETS = ["Mochi", "Biscuit", "Pixel", "Nougat", "Pepper", "Tofu", "Ziggy", "Caramel"]
DISHES = ["ramen", "paella", "couscous", "risotto", "pho", "goulash", "tajine", "lasagna"]
INSTRUMENTS = ["cello", "banjo", "oboe", "ukulele", "harp", "trombone", "accordion"]
SPORTS = ["climbing", "rowing", "fencing", "squash", "judo", "curling", "cycling"]
COLOURS = ["blue", "green", "red", "yellow", "grey", "orange"]

# (fact, English question, French question): the questions share few words with the fact, and
# each names the person (the same kind of fact about others is among the distractors).
PLANTS = [
    ("{p}'s cat is called {pet}.",
     "What name did {p} give to the kitten?", "Comment s'appelle le chat de {p} ?"),
    ("{p} is allergic to peanuts and carries an epinephrine pen.",
     "Does {p} have any food allergy?", "{p} a-t-il une allergie alimentaire ?"),
    ("{p} keeps the spare keys of the {place} office in the {colour} drawer.",
     "Where does {p} leave the backup key for the {place} workplace?",
     "Où {p} range-t-il les clés de secours du bureau de {place} ?"),
    ("{p} plays the {instrument} in an amateur orchestra on Thursdays.",
     "Which musical instrument does {p} practise?", "De quel instrument {p} joue-t-il ?"),
    ("{p}'s favourite dish is {dish}.",
     "What meal does {p} love eating most?", "Quel est le plat préféré de {p} ?"),
    ("{p} joined {org} as head of security last spring.",
     "What is {p}'s job and employer?", "Pour quelle entreprise {p} travaille-t-il ?"),
    ("{p} does {sport} every Saturday morning.",
     "Which physical activity is {p} into at weekends?", "Quel sport {p} pratique-t-il ?"),
    ("{p} was born in {place}.",
     "What is {p}'s hometown?", "Dans quelle ville {p} est-il né ?"),
    ("{p} drives an old {colour} Volvo estate.",
     "What kind of car does {p} own?", "Quelle voiture conduit {p} ?"),
    ("{p} speaks fluent Portuguese and some Japanese.",
     "Which foreign languages can {p} talk in?", "Quelles langues parle {p} ?"),
    ("{p} is vegetarian and never eats fish.",
     "Does {p} eat meat?", "Est-ce que {p} mange de la viande ?"),
    ("{p}'s daughter starts university in {place} in September.",
     "Where will {p}'s child study after school?",
     "Où la fille de {p} va-t-elle faire ses études ?"),
]
PLANTS_FR = [
    ("Le chien de {p} s'appelle {pet}.",
     "What is the name of {p}'s dog?", "Comment s'appelle le toutou de {p} ?"),
    ("{p} a déménagé à {place} au printemps dernier.",
     "Which city did {p} relocate to?", "Où habite {p} maintenant ?"),
    ("{p} collectionne les timbres anciens depuis son enfance.",
     "What is {p}'s hobby as a collector?", "Que collectionne {p} ?"),
    ("{p} a peur de l'avion et prend toujours le train.",
     "How does {p} prefer to travel, and why?", "Comment {p} voyage-t-il ?"),
]
DISTRACTORS = [
    "{p} bought a new {colour} bicycle in {place}.",
    "{p} had {dish} for lunch with a colleague from {org}.",
    "{p} mentioned that {p2} is looking for a flat in {place}.",
    "Call {p} from {org} about the quarterly report tomorrow at 3pm.",
    "{p} recommended a podcast about the history of {place}.",
    "{p} est en congé jusqu'à lundi, voir avec {p2}.",
    "Réunion avec {p} chez {org} à {place} le {day} mars.",
    "{p} a prêté son {instrument} à {p2} pour le concert.",
    "{p}'s {sport} club moved its training to Tuesday evenings.",
    "The {colour} meeting room in {place} is booked by {p} all week.",
    "{p} forgot the charger at the {org} office again.",
    "{p} is reading a novel set in {place}.",
    "{p2} said {p} prefers tea to coffee in the morning.",
    "{p} va courir le semi-marathon de {place} en avril.",
    "{p} asked for the slides of the {org} workshop.",
    "Le train de {p} pour {place} part à 8 h 15.",
]


@dataclass(frozen=True)
class Plant:
    source_id: str
    text: str
    question_en: str
    question_fr: str
    person: str
    template: str
    language: str  # the fact's: "en" or "fr"


def _person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _slots(rng: random.Random) -> dict[str, object]:
    return {"p2": _person(rng), "place": rng.choice(PLACES), "org": rng.choice(ORGS),
            "pet": rng.choice(PETS), "dish": rng.choice(DISHES),
            "instrument": rng.choice(INSTRUMENTS), "sport": rng.choice(SPORTS),
            "colour": rng.choice(COLOURS), "day": rng.randint(1, 28)}


def plants_make(count: int, *, seed: int) -> list[Plant]:
    """`count` planted facts about distinct people (so each question has one answer)."""
    rng = random.Random(seed)
    people = [f"{a} {b}" for a in FIRST for b in LAST]
    rng.shuffle(people)
    templates = [(*t, "en") for t in PLANTS] + [(*t, "fr") for t in PLANTS_FR]
    plants = []
    for k in range(count):
        fact, en, fr, language = templates[k % len(templates)]
        slots = {**_slots(rng), "p": people[k]}
        plants.append(Plant(source_id=f"plant-{k}", text=fact.format(**slots),
                            question_en=en.format(**slots), question_fr=fr.format(**slots),
                            person=people[k], template=fact, language=language))
    return plants


def distractors_make(count: int, *, seed: int, plants: list[Plant]) -> list[dict[str, str]]:
    """Everyday notes about everyone (the planted people included), and the planted kinds of
    facts about other people. Never the planted kind of fact about the planted person with
    another value: that would be a contradiction, not a distractor, and no recall could
    tell which of the two the question means."""
    rng = random.Random(seed + 1)
    planted = {(p.person, p.template) for p in plants}
    templates = DISTRACTORS + [fact for fact, _, _ in PLANTS + PLANTS_FR]
    notes = []
    while len(notes) < count:
        template, person = rng.choice(templates), _person(rng)
        if (person, template) in planted:
            continue
        text = template.format(**{**_slots(rng), "p": person})
        notes.append({"source_id": f"note-{len(notes)}", "text": text})
    return notes
