"""A narrative field under construction: text plus entity spans and fact mentions.

Sentence templates mark entities inline as ``{TYPE|text}``; ``{TYPE*|text}`` marks the entity that
carries the value of the fact mentioned by that sentence (its *key span*). Masking a key span hides
the mention in the redacted condition (see redaction.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_ENTITY = re.compile(r"\{([A-Z_]+)(\*?)\|([^{}]*)\}")


@dataclass
class Entity:
    type: str
    start: int
    end: int
    text: str


@dataclass
class Mention:
    fact: str
    value: object
    polarity: str  # affirmed | negated | hedged | non_satisfying
    start: int
    end: int
    key: int | None = None  # index into Doc.entities of the key span


@dataclass
class Doc:
    text: str = ""
    entities: list[Entity] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)

    def add(self, template: str, fact: str | None = None, value=None, polarity: str = "affirmed",
            sep: str = " ") -> None:
        if self.text and not self.text.endswith(("\n", " ")):
            self.text += sep
        start = len(self.text)
        key = None
        pos = 0
        out = []
        cursor = start
        for m in _ENTITY.finditer(template):
            plain = template[pos:m.start()]
            out.append(plain)
            cursor += len(plain)
            etype, star, etext = m.group(1), m.group(2), m.group(3)
            self.entities.append(Entity(etype, cursor, cursor + len(etext), etext))
            if star:
                key = len(self.entities) - 1
            out.append(etext)
            cursor += len(etext)
            pos = m.end()
        out.append(template[pos:])
        self.text += "".join(out)
        if fact:
            self.mentions.append(Mention(fact, value, polarity, start, len(self.text), key))

    def words(self) -> int:
        return len(self.text.split())
