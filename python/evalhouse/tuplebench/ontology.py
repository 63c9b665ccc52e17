"""The TUPLE-Bench ontology, recipient contracts and costs, read from seeds/tuplebench/*.csv.

The seeds are the single source of truth: editing a row and regenerating changes every world,
response and metric downstream.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..config import PROJECT_ROOT
from ..errors import BadInput

SEED_DIR = PROJECT_ROOT / "seeds" / "tuplebench"
CATEGORIES_PER_DOMAIN = 4
MECHANISMS_PER_CATEGORY = 4


@dataclass(frozen=True)
class Mechanism:
    domain: str
    category: str
    name: str
    label: str
    confusable_category: str
    discriminants: tuple[str, ...]


@dataclass(frozen=True)
class Category:
    domain: str
    name: str
    label: str
    order: int
    check_id: str
    check_question: str
    suspicions: tuple[str, ...]


@dataclass(frozen=True)
class Domain:
    name: str
    label: str
    categories: tuple[Category, ...]
    mechanisms: tuple[Mechanism, ...]
    contract: dict

    @property
    def category_names(self) -> list[str]:
        return [c.name for c in self.categories]

    def mechanisms_of(self, category: str) -> list[Mechanism]:
        return [m for m in self.mechanisms if m.category == category]

    @property
    def mechanism_names(self) -> list[str]:
        return [m.name for m in self.mechanisms]


def _read(name: str, seed_dir: Path) -> list[dict]:
    path = seed_dir / name
    if not path.exists():
        raise BadInput(f"{path}: seed file is missing")
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _need(row: dict, field: str, path: str, index: int) -> str:
    value = (row.get(field) or "").strip()
    if not value:
        raise BadInput(f"{path}, row {index + 2}: field {field} is empty")
    return value


@lru_cache(maxsize=4)
def load(seed_dir: Path = SEED_DIR) -> dict[str, Domain]:
    cats = _read("tuplebench_categories.csv", seed_dir)
    mechs = _read("tuplebench_ontology.csv", seed_dir)
    contracts = {r["domain"]: r for r in _read("tuplebench_contracts.csv", seed_dir)}
    domains: dict[str, Domain] = {}
    for dom in dict.fromkeys(r["domain"] for r in cats):
        dcats = sorted((Category(dom, _need(r, "coarse_category", "tuplebench_categories.csv", i),
                                 r["category_label"], int(r["candidate_order"]), r["check_id"],
                                 _need(r, "check_question", "tuplebench_categories.csv", i),
                                 (r["suspicion_1"], r["suspicion_2"], r["suspicion_3"]))
                        for i, r in enumerate(cats) if r["domain"] == dom), key=lambda c: c.order)
        names = {c.name for c in dcats}
        dmechs = []
        for i, r in enumerate(mechs):
            if r["domain"] != dom:
                continue
            for field in ("coarse_category", "confusable_category"):
                if r[field] not in names:
                    raise BadInput(f"tuplebench_ontology.csv, row {i + 2}: field {field} names unknown category '{r[field]}'")
            dmechs.append(Mechanism(dom, r["coarse_category"], _need(r, "mechanism", "tuplebench_ontology.csv", i),
                                    r["mechanism_label"], r["confusable_category"],
                                    tuple(_need(r, f"discriminant_{k}", "tuplebench_ontology.csv", i) for k in (1, 2, 3))))
        if dom not in contracts:
            raise BadInput(f"tuplebench_contracts.csv: no recipient contract for domain '{dom}'")
        domain = Domain(dom, next(r["domain_label"] for r in cats if r["domain"] == dom),
                        tuple(dcats), tuple(dmechs), dict(contracts[dom]))
        _check_shape(domain)
        domains[dom] = domain
    return domains


def _check_shape(domain: Domain) -> None:
    if len(domain.categories) != CATEGORIES_PER_DOMAIN:
        raise BadInput(f"tuplebench_categories.csv: domain {domain.name} has {len(domain.categories)} categories, expected 4")
    for cat in domain.categories:
        n = len(domain.mechanisms_of(cat.name))
        if n != MECHANISMS_PER_CATEGORY:
            raise BadInput(f"tuplebench_ontology.csv: category {domain.name}/{cat.name} has {n} mechanisms, expected 4")


def mechanism_category(domains: dict[str, Domain]) -> dict[str, str]:
    return {m.name: m.category for d in domains.values() for m in d.mechanisms}


@lru_cache(maxsize=4)
def cost_profiles(seed_dir: Path = SEED_DIR) -> list[dict]:
    rows = _read("tuplebench_cost_profiles.csv", seed_dir)
    out = []
    for i, r in enumerate(rows):
        try:
            out.append({"profile": r["profile"], "order": int(r["profile_order"]),
                        **{k: float(r[k]) for k in ("wrong_route_cost", "review_cost", "check_cost", "asymmetric_scale")}})
        except (TypeError, ValueError, KeyError) as exc:
            raise BadInput(f"tuplebench_cost_profiles.csv, row {i + 2}: incomplete or non-numeric cost ({exc})") from None
    return sorted(out, key=lambda p: p["order"])


@lru_cache(maxsize=4)
def asymmetric_matrix(domain: str, seed_dir: Path = SEED_DIR) -> dict[tuple[str, str], float]:
    """Action x true-class costs of the asymmetric-cost task (base profile); must be complete."""
    dom = load(seed_dir)[domain]
    rows = [r for r in _read("tuplebench_asymmetric_costs.csv", seed_dir) if r["domain"] == domain]
    matrix = {(r["action"], r["true_category"]): float(r["cost"]) for r in rows}
    actions = [f"route_{c}" for c in dom.category_names] + ["review"]
    missing = [(a, t) for a in actions for t in dom.category_names if (a, t) not in matrix]
    if missing:
        raise BadInput(f"tuplebench_asymmetric_costs.csv: domain {domain} cost matrix is not fully specified; missing {missing[:3]}")
    return matrix
