"""Question/SQL templates (seed `cipher_templates`) and their analysis."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from .sql_validate import analyze_template

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


def structured_only_template(template_sql: str, domain: str) -> str | None:
    """The template with its narrative predicates dropped (slots kept); None when the answer itself
    projects an annotation column or the template is invalid."""
    return analyze_template(template_sql, domain).structured_only_sql


def _projects_annotation(t: Template) -> bool:
    """True when an annotation column is read in a select list (the answer itself is narrative)."""
    return analyze_template(t.sql, t.domain).projects_annotation
