"""Domain vocabularies: the words a generator puts into a template to set a question in a domain.

Every domain in ``taxonomy.KNOWN_DOMAINS`` has a :class:`DomainVocab`, read from ``data/steer/domains.yaml`` (the
words are data; this module holds only their type and the reader). Fields are generic slots (alternatives to
choose among, a project, a pair of chance events, an object and places for false-belief stories, category and
proposition words for logic) so that one template renders in every domain.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from choicelab.studies.steer import DATA


@dataclass(frozen=True)
class DomainVocab:
    name: str
    role: str  # who "you" are
    option_noun: str  # what the alternatives are
    alternatives: tuple[str, ...]  # named alternatives (>= 6)
    counted: tuple[str, str]  # (singular, plural) of a countable thing
    price_item: str  # something bought repeatedly
    project: str  # an ongoing investment one can abandon
    owned_item: str  # an object one can buy or sell (endowment effect)
    chance_events: tuple[tuple[str, str], ...]  # (event happens, event does not happen)
    tom_object: str
    tom_places: tuple[str, ...]  # >= 5 places
    categories: tuple[str, ...]  # plural category nouns for syllogisms (>= 5)
    propositions: tuple[str, ...]  # clauses "the X happens" for conditionals (>= 5)
    urn_story: str  # what a draw from an urn decides


VOCABULARY_FILE = DATA / "domains.yaml"  # the words themselves: data a reviewer reads without reading Python
VOCABULARY: dict[str, Any] = yaml.safe_load(VOCABULARY_FILE.read_text(encoding="utf-8"))  # games' words too
TEXTS_FILE = DATA / "texts.yaml"  # fixed texts a question states in full (voting rules, mechanism properties)
TEXTS: dict[str, Any] = yaml.safe_load(TEXTS_FILE.read_text(encoding="utf-8"))
TEMPLATES_FILE = DATA / "templates.yaml"  # questions' fixed sentences by generator module: str.format templates
TEMPLATES: dict[str, dict[str, Any]] = yaml.safe_load(TEMPLATES_FILE.read_text(encoding="utf-8"))


def _as_field(value: Any) -> Any:
    """A YAML list as the tuple DomainVocab holds (nested lists too)."""
    return tuple(_as_field(v) for v in value) if isinstance(value, list) else value


def read_vocabularies(path: Path = VOCABULARY_FILE) -> tuple[tuple[str, ...], dict[str, DomainVocab]]:
    """The character names and every domain's :class:`DomainVocab` of ``path``; an entry that lacks a field or has
    one DomainVocab does not know is refused, naming the file, the domain and the field."""
    document = VOCABULARY if path == VOCABULARY_FILE else yaml.safe_load(path.read_text(encoding="utf-8"))
    fields = [f.name for f in dataclasses.fields(DomainVocab) if f.name != "name"]
    vocabs = {}
    for name, entry in document["domains"].items():
        missing, unknown = set(fields) - set(entry), set(entry) - set(fields)
        if missing or unknown:
            raise ValueError(f"{path}: domain {name!r}: missing fields {sorted(missing)}, unknown {sorted(unknown)}")
        vocabs[name] = DomainVocab(name, **{f: _as_field(entry[f]) for f in fields})
    for section in PER_DOMAIN_SECTIONS:
        missing = sorted(set(vocabs) - set(document[section]))
        if missing:
            raise ValueError(f"{path}: section {section!r} has no words for domains {missing}")
    return tuple(document["people"]), vocabs


# Sections of the vocabulary file with words for every domain (signalling has its own, for the domains it suits).
PER_DOMAIN_SECTIONS = ("games", "social_choice", "counting")


PEOPLE, VOCABS = read_vocabularies()


def vocab(domain: str) -> DomainVocab:
    try:
        return VOCABS[domain]
    except KeyError:
        raise ValueError(f"no vocabulary for STEER domain {domain!r}; known: {sorted(VOCABS)}") from None
