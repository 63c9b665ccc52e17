"""Operator registry and the context every operator works in.

An operator has two halves: ``select`` decides whether it applies to a source task (returning a
target or raising ``NotApplicable`` with the blocking condition) and ``construct`` edits a copy
of the package in a staging folder and returns the construction record. The validator later
re-reads the files and checks the record independently (``validator.py``).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog import CSV_TABLES
from ..package import table_name_for
from ..protocols import SourceTask


class NotApplicable(Exception):
    """The operator cannot apply; the message is the blocking condition."""


@dataclass(frozen=True)
class OperatorSpec:
    name: str
    code: str
    track: str  # reliability | robustness
    level: str  # L0..L3 (robustness) | easy | hard (reliability)
    priority: int
    extensions: tuple[str, ...]
    definition: str
    impl: Any = field(compare=False, default=None)  # class with select/construct/validation hooks

    @property
    def expected_behavior(self) -> str:
        return "refuse" if self.track == "reliability" else "answer"


@dataclass
class Ctx:
    task: SourceTask
    src: Path
    out: Path
    rng: random.Random
    variant: int = 0


OPERATORS: dict[str, OperatorSpec] = {}


def register(name, code, track, level, priority, extensions, definition):
    def wrap(cls):
        OPERATORS[name] = OperatorSpec(name, code, track, level, priority, extensions, definition, cls())
        return cls
    return wrap


SYNONYMS = {c.header: c.synonym for t in CSV_TABLES for c in t.cols if c.synonym}
UNITS = {c.header: c.unit for t in CSV_TABLES for c in t.cols if c.unit}
DESCRIPTIONS = {c.header: c.desc for t in CSV_TABLES for c in t.cols}
ROLES = {c.header: c.role for t in CSV_TABLES for c in t.cols}

ORDER_WORDS = re.compile(r"\b(first|last|previous|next) (row|record|entry|line)s?\b|\badjacent\b|\brow order\b|"
                         r"\bposition\b|\bfirst \d+\b|\blast \d+\b|\btop \d+ rows\b|\bhead\b|\btail\b", re.I)


def locate(task: SourceTask, table: str) -> tuple[str, str | None]:
    """(file, sheet) holding a SQL table of the task's package."""
    for f in task.files:
        if f.lower().endswith(".xlsx"):
            stem = table_name_for(f)
            if table.startswith(stem + "__"):
                return f, table[len(stem) + 2:]
        elif table_name_for(f) == table:
            return f, None
    raise NotApplicable(f"table {table} is not in the package")


def used_tables(task: SourceTask) -> list[str]:
    seen = []
    for t, _ in task.fields_used:
        if t not in seen:
            seen.append(t)
    return seen


def used_columns(task: SourceTask, table: str) -> list[str]:
    out = []
    for t, c in task.fields_used:
        if t == table and c not in out:
            out.append(c)
    return out


def primary_field(task: SourceTask) -> tuple[str, str]:
    """The field the final computation aggregates (agg_col when known, else the first used)."""
    agg = task.meta.get("agg_col")
    for t, c in task.fields_used:
        if c == agg:
            return t, c
    if not task.fields_used:
        raise NotApplicable("the task's answer path names no field")
    return task.fields_used[0]


class TargetsPrimaryField:
    """Operators whose target is the task's primary field, located in its file (and sheet)."""

    def select(self, task: SourceTask) -> dict:
        table, col = primary_field(task)
        file, sheet = locate(task, table)
        return {"table": table, "file": file, "sheet": sheet, "column": col}


def ext_of(file: str) -> str:
    return Path(file).suffix.lower()
