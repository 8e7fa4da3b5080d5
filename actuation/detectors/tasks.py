"""What a session was started for: the task words of its first prompt (what the operator
asked), in English or French alike, and the sessions started for the same kind of task.
Pure: plain strings in and out."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence

MAX_WORDS = 40
# Paths, file names, identifiers and code: what varies between two requests of one task.
_CODE = re.compile(r"\S*[/\\]\S*|\S+\.[A-Za-z]{1,5}\b|\w+_\w+|\w+\(\)|`[^`]*`|\{[^}]*\}")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_ELIDED = re.compile(r"^(?:l|d|j|n|qu|s|c|m|t)'")
_STOP_WORDS = """
a an the this that these those it its is are was were be been being to of in on at for from
with by as and or but not no so if then than there here what which who whom whose why how
when where can could would should will shall may might must do does did done please just
also some any all each every me my we our you your i us them they their he she his her
let lets let's want need make sure now again still very really ok okay hi hello thanks thank
le la les un une des du de d l au aux et ou mais donc ni car que qui quoi dont où ce cet cette
ces c ça cela il elle ils elles on nous vous tu je j me te se mon ma mes ton ta tes son sa ses
notre nos votre vos leur leurs dans sur sous avec sans pour par en y est sont été être avoir a
ont as ai peux peut pouvez veux veut stp svp merci bonjour encore aussi très bien plus moins
tout tous toutes toute pas ne n si alors comme
"""
STOP = frozenset(_STOP_WORDS.split())
# French task words in the English of the same task.
FRENCH = {
    "corrige": "fix", "corriger": "fix", "corrigez": "fix", "répare": "fix", "réparer": "fix",
    "ajoute": "add", "ajouter": "add", "ajoutez": "add", "écris": "write", "écrire": "write",
    "refactorise": "refactor", "refactoriser": "refactor", "renomme": "rename",
    "renommer": "rename", "mets": "update", "mettre": "update", "jour": "",
    "lance": "run", "lancer": "run", "exécute": "run", "exécuter": "run",
    "vérifie": "check", "vérifier": "check", "teste": "test", "tester": "test",
    "échoue": "fail", "échouent": "fail", "échoué": "fail", "échec": "fail",
    "construis": "build", "compile": "build", "compiler": "build", "déploie": "deploy",
    "déployer": "deploy", "supprime": "remove", "supprimer": "remove", "enlève": "remove",
    "documente": "document", "documenter": "document", "relis": "review", "revois": "review",
    "profiler": "profile", "profile": "profile", "lent": "slow", "lente": "slow",
    "pourquoi": "why", "erreur": "error", "erreurs": "error", "bogue": "bug",
    "fichier": "file", "fichiers": "file", "fonction": "function", "appels": "caller",
    "appelants": "caller", "annotations": "hint", "indications": "hint", "nom": "name",
    "clair": "clear", "liste": "listing", "éléments": "item", "page": "page",
    "pagination": "pagination", "base": "database", "client": "client",
    "exponentiel": "exponential", "réessai": "retry", "cas": "case", "vide": "empty",
    "gros": "big", "comptes": "account", "passer": "pass", "fais": "make", "faire": "make",
    "mise": "update", "installe": "install", "installer": "install", "nettoie": "clean",
    "pousse": "push", "pousser": "push", "fusionne": "merge", "migre": "migrate",
}
# English inflections read as their stem: "failing", "failed", "fails" -> "fail".
_SUFFIXES = (("ing", 6), ("ed", 5), ("es", 5), ("s", 4))
_SAME_AFTER = {"annotation": "hint", "hints": "hint", "callers": "caller", "items": "item",
               "accounts": "account", "tests": "test", "types": "type"}


def _stem(word: str) -> str:
    word = _SAME_AFTER.get(word, word)
    for suffix, min_length in _SUFFIXES:
        if len(word) >= min_length and word.endswith(suffix) and not word.endswith("ss"):
            stem = word[: -len(suffix)]
            return stem[:-1] if suffix == "ing" and stem[-2:-1] == stem[-1:] else stem
    return word


def task_words(prompt: str) -> frozenset[str]:
    """The content words of a request, paths and identifiers left out, French read as the
    English of the same task ("Corrige le test qui échoue" -> {fix, test, fail})."""
    text = _CODE.sub(" ", prompt.casefold())
    words: set[str] = set()
    for raw in _WORD.findall(text)[:MAX_WORDS]:
        word = _ELIDED.sub("", raw)
        word = FRENCH.get(word, word)
        if len(word) < 3 or word in STOP:
            continue
        words.add(_stem(word))
    return frozenset(words)


def task_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


@dataclasses.dataclass
class Task:
    """Sessions started for one kind of task: their first prompts alike."""

    sessions: list[str] = dataclasses.field(default_factory=list)
    prompts: list[str] = dataclasses.field(default_factory=list)
    words: list[frozenset[str]] = dataclasses.field(default_factory=list)

    @property
    def core(self) -> frozenset[str]:
        """The words at least half of its prompts hold."""
        counts = Counter(w for words in self.words for w in words)
        return frozenset(w for w, n in counts.items() if 2 * n >= len(self.words))

    def representative(self) -> int:
        """The index of the prompt that holds the most of the core, the shortest first."""
        core = self.core
        return max(range(len(self.prompts)),
                   key=lambda i: (len(self.words[i] & core), -len(self.prompts[i])))


def tasks_group(firsts: Sequence[tuple[str, str]], *, similarity: float) -> list[Task]:
    """(session, first prompt) pairs, in time order, grouped by kind of task: a session
    joins the task whose core words its own share the most, at least `similarity`."""
    tasks: list[Task] = []
    for session, prompt in firsts:
        words = task_words(prompt)
        if not words:
            continue
        scored = [(task_similarity(words, t.core or t.words[0]), n) for n, t in enumerate(tasks)]
        best = max(scored, default=(0.0, -1))
        if best[0] >= similarity:
            task = tasks[best[1]]
        else:
            task = Task()
            tasks.append(task)
        task.sessions.append(session)
        task.prompts.append(prompt)
        task.words.append(words)
    return tasks


def task_name_words(task: Task, *, limit: int = 5) -> list[str]:
    """The task's core words as its representative prompt says them, in its order (French
    words in their English: "fix failing test")."""
    prompt = task.prompts[task.representative()]
    core, seen, out = task.core, set(), []
    for raw in _WORD.findall(_CODE.sub(" ", prompt.casefold())):
        word = FRENCH.get(_ELIDED.sub("", raw), _ELIDED.sub("", raw))
        stem = _stem(word) if word else ""
        if stem in core and stem not in seen:
            seen.add(stem)
            out.append(word)
    return out[:limit]
