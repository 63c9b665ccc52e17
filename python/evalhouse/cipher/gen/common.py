"""Helpers shared by the domain generators: slot filling, fact rendering, filler text."""
from __future__ import annotations

import random
import re
from datetime import date, timedelta

from ..textdoc import Doc

_SLOT = re.compile(r"<(\w+)>")


def fill_slots(template: str, slots: dict) -> str:
    """Replace <slot> markers with values from ``slots`` (callables are called)."""
    def sub(m):
        v = slots[m.group(1)]
        return str(v() if callable(v) else v)
    return _SLOT.sub(sub, template)


def render_fact(doc: Doc, rng: random.Random, fact: str, value, phrasing: dict, slots: dict,
                truthy: bool, distractor_rate: float = 0.45) -> None:
    """Affirmed mention(s) when the fact holds; otherwise maybe a negated/hedged/non-satisfying one."""
    if truthy:
        for tpl in rng.sample(phrasing["affirmed"], k=min(len(phrasing["affirmed"]), rng.choice([1, 1, 2]))):
            doc.add(fill_slots(tpl, slots), fact, value, "affirmed")
        if phrasing.get("hedged") and rng.random() < 0.2:
            doc.add(fill_slots(rng.choice(phrasing["hedged"]), slots), fact, value, "hedged")
        return
    if rng.random() < distractor_rate:
        kinds = [k for k in ("negated", "hedged", "non_satisfying") if phrasing.get(k)]
        kind = rng.choice(kinds)
        doc.add(fill_slots(rng.choice(phrasing[kind]), slots), fact, value, kind)


def filler(doc: Doc, rng: random.Random, bank: list[str], slots: dict, target_words: int) -> None:
    order = list(bank)
    rng.shuffle(order)
    i = 0
    while doc.words() < target_words:
        doc.add(fill_slots(order[i % len(order)], slots))
        i += 1
        if i % len(order) == 0:
            rng.shuffle(order)


def rand_date(rng: random.Random, start: date, end: date) -> date:
    return start + timedelta(days=rng.randrange((end - start).days + 1))


def weighted(rng: random.Random, options: dict):
    keys = list(options)
    return rng.choices(keys, weights=[options[k] for k in keys])[0]


def interleave(doc: Doc, rng: random.Random, items: list) -> None:
    """Add a shuffled mix of callables (fact renderers and filler chunks)."""
    rng.shuffle(items)
    for item in items:
        item()
