"""Instantiate templates to the paper's per-domain counts and Table 1 operation / answer-type mix.

Parameters are sampled from the data (each template's `slots_sql` lists candidate slot values);
an instance is kept only if, in both conditions, its SQL executes with a non-empty answer and
support, its support fits a 39-42 record context, and it is narrative-sensitive (it projects an
annotation column or its answer changes when the narrative predicates are dropped).
"""
from __future__ import annotations

import random
from collections import defaultdict

from .domains import ANSWER_TYPES, CONDITIONS, OPERATIONS, PAPER_TABLE1
from .sql_exec import DomainStore, execute_template_conditions
from .sql_validate import SQLValidationError, analyze_template, render
from .templates import Template, _projects_annotation, structured_only_template

MAX_SUPPORT = 36


def cell_targets(domain: str, total: int, available: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """Integer op x answer-type counts matching Table 1's marginals (IPF over available cells)."""
    spec = PAPER_TABLE1[domain]
    rows = {op: spec["operation"][op] / 100 * total for op in OPERATIONS}
    cols = {t: spec["answer_type"][t] / 100 * total for t in ANSWER_TYPES}
    m = {c: 1.0 for c in available}
    for _ in range(200):
        for op in OPERATIONS:
            s = sum(v for (o, _), v in m.items() if o == op)
            for c in m:
                if c[0] == op and s:
                    m[c] *= rows[op] / s
        for t in ANSWER_TYPES:
            s = sum(v for (_, a), v in m.items() if a == t)
            for c in m:
                if c[1] == t and s:
                    m[c] *= cols[t] / s
    floor = {c: int(v) for c, v in m.items()}
    rest = total - sum(floor.values())
    for c in sorted(m, key=lambda c: m[c] - floor[c], reverse=True)[:rest]:
        floor[c] += 1
    return floor


class Instantiator:
    def __init__(self, store: DomainStore, templates: list[Template], seed: int, batch: int = 400):
        self.store = store
        self.batch = batch
        self._valid: dict[str, list[dict]] = {}
        self.templates = templates
        self.seed = seed

    def candidates(self, t: Template, rng: random.Random) -> list[dict]:
        self.store.bind(t.domain, "redacted")
        cur = self.store.con.execute(t.slots_sql)  # slots_sql reads the logical table name
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
        rows.sort(key=lambda r: repr(sorted(r.items())))
        rng.shuffle(rows)
        return rows

    def evaluate(self, t: Template, batch: list[dict]) -> list[dict]:
        """The candidates of ``batch`` that pass the instance rules, in order (set-based execution)."""
        info = analyze_template(t.sql, t.domain)
        so = None if _projects_annotation(t) else structured_only_template(t.sql, t.domain)
        gold = execute_template_conditions(self.store, t.sql, info.support_sql, t.domain, list(CONDITIONS), batch,
                                           t.answer_type, info.ordered)
        alt = None
        if so is not None:
            alt = execute_template_conditions(self.store, so, info.support_sql, t.domain, ["redacted"], batch, t.answer_type,
                                              info.ordered, with_support=False)["redacted"]
        keep = []
        for j, params in enumerate(batch):
            rs = [gold[c][j] for c in CONDITIONS]
            if any(r.status != "ok" or len(r.support_ids) > MAX_SUPPORT for r in rs):
                continue
            if so is not None and alt[j].answer_json == rs[0].answer_json:
                continue  # dropping the narrative predicate does not change the answer
            keep.append(params)
        return keep

    def instantiate(self, domain: str, total: int) -> list[dict]:
        rng = random.Random(f"{self.seed}:{domain}:instantiate")
        templates = [t for t in self.templates if t.domain == domain and analyze_template(t.sql, domain).ok]
        by_cell: dict[tuple[str, str], list[Template]] = defaultdict(list)
        for t in templates:
            by_cell[(t.operation, t.answer_type)].append(t)
        targets = cell_targets(domain, total, set(by_cell))
        pools = {t.template_id: self.candidates(t, rng) for t in templates}
        out: list[dict] = []
        seen: set[str] = set()
        short: dict[tuple[str, str], int] = {}
        for cell in sorted(targets):
            got = self._fill(by_cell[cell], targets[cell], pools, seen, out)
            if got < targets[cell]:
                short[cell] = targets[cell] - got
        # A cell that ran out of valid parameters hands its quota to cells of the same operation, then
        # of the same answer type, then any cell, so the Table 1 marginals move as little as possible.
        for (op, at), missing in sorted(short.items()):
            for rank in (lambda c: c[0] == op, lambda c: c[1] == at, lambda c: True):
                for cell in sorted((c for c in targets if rank(c) and c != (op, at)), key=lambda c: -targets[c]):
                    if missing <= 0:
                        break
                    missing -= self._fill(by_cell[cell], missing, pools, seen, out)
        return out

    def _fill(self, templates: list[Template], n: int, pools, seen, out) -> int:
        got = 0
        active = list(templates)
        while got < n and active:
            for t in list(active):
                if got >= n:
                    break
                params = self._next_valid(t, pools, seen)
                if params is None:
                    active.remove(t)
                    continue
                seen.add(render(t.question, params, sql=False))
                seq = sum(1 for o in out if o["template_id"] == t.template_id) + 1
                out.append({"item_id": f"{t.domain}-{t.short_id}-{seq:04d}", "domain": t.domain,
                            "template_id": t.template_id, "seq": seq, "params": params})
                got += 1
        return got

    def _next_valid(self, t: Template, pools, seen) -> dict | None:
        queue = self._valid.setdefault(t.template_id, [])
        while True:
            while queue:
                params = queue.pop(0)
                if render(t.question, params, sql=False) not in seen:
                    return params
            pool = pools[t.template_id]
            if not pool:
                return None
            batch = [pool.pop() for _ in range(min(self.batch, len(pool)))]  # noqa: E501
            queue.extend(self.evaluate(t, batch))
