"""CLI commands of CIPHER evaluation: import human judgments (for judge-vs-human kappa, Table 7).

Expose with ``COMMANDS`` from ``evalhouse.cipher.commands`` (``from .eval_commands import COMMANDS``).
"""
from __future__ import annotations

import csv
from pathlib import Path

import click

from ..errors import BadInput
from ..runs import open_run

REQUIRED = ("output_run_id", "output_id", "annotator", "accept")
_TRUE = {"1", "true", "yes", "y", "accept", "accepted"}
_FALSE = {"0", "false", "no", "n", "reject", "rejected"}


def read_human_labels(path: Path) -> list[dict]:
    """Rows of a CSV with columns output_run_id, output_id, annotator, accept[, note]."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            raise BadInput(f"{path}: missing column(s) {', '.join(missing)} (need {', '.join(REQUIRED)})")
        rows = []
        for line, rec in enumerate(reader, start=2):
            for col in REQUIRED:
                if not (rec.get(col) or "").strip():
                    raise BadInput(f"{path}, row {line}: field {col} is empty")
            decision = rec["accept"].strip().lower()
            if decision not in _TRUE | _FALSE:
                raise BadInput(f"{path}, row {line}: field accept must be yes/no, true/false or 1/0, got '{rec['accept']}'")
            rows.append({
                "item_id": f"{rec['output_run_id'].strip()}|{rec['output_id'].strip()}|{rec['annotator'].strip()}",
                "output_run_id": rec["output_run_id"].strip(), "output_item_id": rec["output_id"].strip(),
                "annotator": rec["annotator"].strip(), "accept": decision in _TRUE,
                "note": (rec.get("note") or "").strip() or None,
            })
    return rows


def import_human_labels(path: Path) -> int:
    rows = read_human_labels(path)
    with open_run("cipher.human_labels", {"file": str(Path(path).resolve())}, benchmark="cipher") as run:
        run.write("cipher_eval_human_labels", rows)
    return len(rows)


@click.command("cipher-human-labels")
@click.argument("csv_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def human_labels_command(csv_file: Path) -> None:
    """Import human accept/reject labels of CIPHER outputs (columns: output_run_id, output_id,
    annotator, accept[, note]); `evalhouse build` then reports judge-vs-human kappa."""
    click.echo(f"imported {import_human_labels(csv_file)} human label(s) from {csv_file}")


COMMANDS = [human_labels_command]
