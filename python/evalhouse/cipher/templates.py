"""Question/SQL templates (seed `cipher_templates`) and their analysis."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .sql_validate import SQLValidationError, _restore_sentinels, _with_sentinels, analyze_template, drop_narrative_predicates

SEED = Path(__file__).resolve().parents[3] / "seeds" / "cipher" / "cipher_templates.csv"


@dataclass(frozen=True)
class Template:
    template_id: str
    domain: str
    operation: str
    answer_type: str
    question: str
    sql: str
    slots_sql: str

    @property
    def short_id(self) -> str:
        return self.template_id.split("-", 1)[1]


def load_templates(path: Path | None = None) -> list[Template]:
    with open(path or SEED, newline="") as fh:
        return [Template(**{k: row[k] for k in Template.__dataclass_fields__}) for row in csv.DictReader(fh)]


@lru_cache(maxsize=4096)
def structured_only_template(template_sql: str, domain: str) -> str | None:
    """The template with its narrative predicates dropped (slots kept), or None if it does not parse."""
    try:
        parsed, back = _with_sentinels(template_sql)
        return _restore_sentinels(drop_narrative_predicates(parsed, domain), back)
    except SQLValidationError:
        return None

@lru_cache(maxsize=4096)
def _projects_annotation(t: Template) -> bool:
    """True when an annotation column is read in the SELECT list (the answer itself is narrative)."""
    import sqlglot
    from sqlglot import exp

    from .domains import DOMAINS
    tree = sqlglot.parse_one(_with_sentinels(t.sql)[0], read="duckdb")
    ann = set(DOMAINS[t.domain].annotation)
    for sel in tree.find_all(exp.Select):
        for proj in sel.expressions:
            if any(c.name in ann for c in proj.find_all(exp.Column)):
                # an aggregate over the annotation column (SUM(amount)) also makes the answer narrative
                return True
    return False
