"""Text normalisation for deduplication and conflict detection, in English and French.

Claims are compared on *lemmas*: casefolded, accent-free tokens with French
words mapped to an English canonical form, so that "X is reliable" and
"X n'est pas fiable" share their content words and differ only in polarity.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_SPACES = re.compile(r"\s+")
_ELISION = re.compile(r"\b([cdjlmnst]|qu)'", re.IGNORECASE)

NEGATIONS = frozenset(
    {
        "not", "no", "never", "dont", "don", "doesnt", "isnt", "arent", "wasnt", "cant",
        "cannot", "wont", "shouldnt", "avoid", "stop", "without", "nor",
        "ne", "pas", "jamais", "aucun", "aucune", "evite", "eviter", "evitez", "sans",
        "n",
    }
)

STOPWORDS = frozenset(
    {
        "a", "an", "the", "is", "are", "was", "be", "been", "to", "of", "for", "in", "on",
        "with", "and", "or", "it", "this", "that", "we", "you", "i", "please", "always",
        "should", "must", "do", "does", "s", "t",
        "le", "la", "les", "un", "une", "des", "du", "de", "d", "l", "est", "sont", "et",
        "ou", "en", "au", "aux", "pour", "par", "sur", "ce", "cette", "il", "elle", "nous",
        "vous", "je", "j", "c", "qu", "que", "toujours", "stp", "svp", "merci",
        # "plus" negates only beside "ne", which already does; alone it means "more".
        "plus", "dans", "avec", "ici", "here", "there", "at", "by", "as", "from",
    }
)

# French (accent-free) -> English canonical lemma. Small on purpose: the words
# instructions and judgements are made of.
FRENCH_LEMMAS = {
    "utilise": "use", "utiliser": "use", "utilisez": "use", "utilises": "use",
    "emploie": "use", "prends": "use", "prendre": "use",
    "fiable": "reliable", "fiables": "reliable", "stable": "stable", "rapide": "fast",
    "lent": "slow", "lente": "slow", "bon": "good", "bonne": "good", "mauvais": "bad",
    "mauvaise": "bad", "marche": "works", "fonctionne": "works", "casse": "broken",
    "installe": "install", "installer": "install", "ajoute": "add", "ajouter": "add",
    "supprime": "delete", "supprimer": "delete", "ecris": "write", "ecrire": "write",
    "teste": "test", "tester": "test", "tests": "test", "lance": "run", "lancer": "run",
    "execute": "run", "executer": "run", "bibliotheque": "library", "librairie": "library",
    "fichier": "file", "fichiers": "file", "projet": "project", "commit": "commit",
    "committe": "commit", "pousse": "push", "pousser": "push", "prefere": "prefer",
    "preferer": "prefer", "aime": "like", "besoin": "need", "faut": "must",
    "securise": "secure", "sur": "safe", "dangereux": "dangerous", "vrai": "true",
    "faux": "false", "correct": "correct", "juste": "correct",
}
ENGLISH_LEMMAS = {
    "uses": "use", "using": "use", "used": "use", "libraries": "library", "files": "file",
    "tests": "test", "testing": "test", "runs": "run", "running": "run", "works": "works",
    "working": "works", "prefers": "prefer", "preferred": "prefer", "installs": "install",
    "installing": "install", "adds": "add", "adding": "add",
}


def strip_accents(text: str) -> str:
    if text.isascii():  # unchanged by NFKD, no combining marks
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=65536)
def normalize(text: str) -> str:
    """The alias form: casefold, no accents, punctuation as space, single spaces."""
    flat = strip_accents(text.casefold()).replace("'", "").replace("’", "")
    return _SPACES.sub(" ", _PUNCT.sub(" ", flat)).strip()


def _raw_tokens(text: str) -> list[str]:
    flat = strip_accents(text.casefold()).replace("’", "'")
    flat = _ELISION.sub(lambda m: m.group(1) + " ", flat)
    flat = flat.replace("n't", " not").replace("'", "")
    return _SPACES.sub(" ", _PUNCT.sub(" ", flat)).split()


def lemma(token: str) -> str:
    return FRENCH_LEMMAS.get(token) or ENGLISH_LEMMAS.get(token) or token


@lru_cache(maxsize=65536)
def content_lemmas(text: str) -> frozenset[str]:
    """Lemmas that carry the claim's subject, without negations or stopwords."""
    return frozenset(
        lemma(tok) for tok in _raw_tokens(text) if tok not in NEGATIONS and tok not in STOPWORDS
    )


def polarity(text: str) -> int:
    """+1 for an affirmative claim, -1 for a negated one."""
    return -1 if any(tok in NEGATIONS for tok in _raw_tokens(text)) else 1


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    if not left and not right:
        return 0.0
    return len(left & right) / len(left | right)


def claim_lemmas(claim: str, names: Iterable[str] = ()) -> frozenset[str]:
    """The content lemmas of a claim made on an entity, without the entity's own names
    ("Postgres is reliable" on Postgres, alias PostgreSQL: {reliable}), unless nothing
    else is left (the claim "use uv" on the instruction "use uv" keeps {use, uv})."""
    lemmas = content_lemmas(claim)
    named = frozenset().union(*(content_lemmas(name) for name in names))
    return (lemmas - named) or lemmas
