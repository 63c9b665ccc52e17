"""Human verification: import expert votes (CSV: candidate_id, expert, valid[, comment]).

dbt keeps an accepted candidate only when at least 90% of its votes say valid
(int_trustda_candidates_verified); candidates without votes keep the validator's verdict.
"""
from __future__ import annotations

import csv
from pathlib import Path

from ..errors import BadInput
from ..runs import open_run

TRUE, FALSE = {"1", "true", "yes", "valid", "y"}, {"0", "false", "no", "invalid", "n"}


def read_votes(path: Path) -> list[dict]:
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"candidate_id", "expert", "valid"} - set(reader.fieldnames or [])
        if missing:
            raise BadInput(f"{path.name}: missing column(s) {sorted(missing)}")
        for n, r in enumerate(reader, start=2):
            flag = (r["valid"] or "").strip().lower()
            if flag not in TRUE | FALSE:
                raise BadInput(f"{path.name}, row {n}, field valid: {r['valid']!r} is not a yes/no vote")
            rows.append({"item_id": f"{r['candidate_id']}|{r['expert']}", "candidate_id": r["candidate_id"],
                         "expert": r["expert"], "valid": flag in TRUE, "comment": r.get("comment") or None})
    return rows


def import_votes(path: Path) -> int:
    """Land the votes of a CSV file (re-importing the same file adds nothing). Returns rows landed."""
    rows = read_votes(Path(path))
    with open_run("trustda.votes", {"file": str(Path(path).resolve())}, benchmark="trustda") as run:
        done = run.done_items("trustda_human_votes")
        new = [r for r in rows if r["item_id"] not in done]
        if new:
            run.write("trustda_human_votes", new)
    return len(new)
