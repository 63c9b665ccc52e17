"""Importer for the InfiAgent-DABench layout: questions.jsonl, labels.jsonl and a tables folder.

Each question becomes a source task whose package holds its one CSV. DABench questions carry no
executable answer path; operators that need one use a proxy over the field the question names
(see ``validator.answer_sql``). Files that cannot be parsed are reported and their tasks skipped.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from ..errors import BadInput
from .answer_path import load_package
from .builtin import _reencodable

from .package import CsvDoc, commit_package, new_staging_dir, relative_package_path, table_name_for
from .protocols import SourceTask

QUOTED = re.compile(r"[\"“']([^\"”']{1,80})[\"”']")


def read_jsonl(path: Path) -> tuple[list[dict], list[dict]]:
    rows, issues = [], []
    if not path.exists():
        raise BadInput(f"{path}: file not found (expected the DABench layout)")
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            issues.append({"dataset": "dabench", "file": path.name, "reason": f"line {n}: invalid JSON ({exc.msg})"})
    return rows, issues


def tables_dir(folder: Path) -> Path:
    for name in ("tables", "da-dev-tables", "data"):
        if (folder / name).is_dir():
            return folder / name
    raise BadInput(f"{folder}: no tables folder (expected 'tables/')")


def import_dabench(folder: Path, limit: int | None = None) -> tuple[list[SourceTask], list[dict]]:
    folder = Path(folder)
    questions, issues = read_jsonl(folder / "questions.jsonl")
    labels_rows, more = read_jsonl(folder / "labels.jsonl")
    issues += more
    labels = {r.get("id"): r.get("common_answers") for r in labels_rows}
    tdir = tables_dir(folder)
    packages: dict[str, tuple[Path, str, dict[str, str]] | None] = {}
    tasks = []
    for q in questions[:limit] if limit else questions:
        qid, file_name = q.get("id"), q.get("file_name")
        answers = labels.get(qid)
        if not file_name or not answers:
            issues.append({"dataset": "dabench", "file": str(file_name), "reason": f"question {qid}: missing file_name or label"})
            continue
        if file_name not in packages:
            packages[file_name] = _package(tdir / file_name, issues)
        pkg = packages[file_name]
        if pkg is None:
            continue
        folder_, digest, types, profile = pkg
        table = table_name_for(file_name)
        fields = _fields(q, types)
        pairs = [(str(n), str(v)) for n, v in answers]
        tasks.append(SourceTask(
            source_task_id=f"dabench:{qid}", dataset="dabench", question=q.get("question", ""),
            constraints=q.get("constraints", ""), answer_format=q.get("format", ""),
            category=", ".join(q.get("concepts", [])), level=q.get("level", "medium"), files=[file_name],
            gold_sql=None, answer_names=[n for n, _ in pairs], reference_pairs=pairs,
            fields_used=[(table, c) for c in fields], steps=1,
            meta={"file_kind": "csv", "package_name": Path(file_name).stem, **({"agg_col": fields[0]} if fields else {}),
                  "value_profile": {f"{table}.{c}": profile.get(c) for c in fields}},
            package_path=relative_package_path(folder_), package_hash=digest))
    return tasks, issues


def _package(path: Path, issues: list[dict]):
    if not path.exists():
        issues.append({"dataset": "dabench", "file": path.name, "reason": "file not found in the tables folder"})
        return None
    try:
        CsvDoc.read(path)  # encoding, ragged rows
        staging = new_staging_dir()
        shutil.copy2(path, staging / path.name)
        con = load_package(staging)
        table = table_name_for(path.name)
        types = {r[0]: r[1] for r in con.execute(f'describe "{table}"').fetchall()}
        profile = {c: _reencodable(con, table, c) for c in types}
        con.close()
    except BadInput as exc:
        issues.append({"dataset": "dabench", "file": path.name, "reason": str(exc)})
        return None
    folder, digest = commit_package(staging, "sources")
    return folder, digest, types, profile


NUMERIC = ("BIGINT", "DOUBLE", "INTEGER", "FLOAT", "DECIMAL", "HUGEINT", "SMALLINT", "TINYINT", "UBIGINT")


def _fields(q: dict, types: dict[str, str]) -> list[str]:
    """Columns the question names: quoted header names first, numeric fields first."""
    text = f"{q.get('question', '')} {q.get('constraints', '')}"
    named = [m for m in QUOTED.findall(text) if m in types]
    if not named:
        low = text.lower()
        named = [c for c in types if len(c) > 2 and re.search(r"\b" + re.escape(c.lower()) + r"\b", low)]
    named = list(dict.fromkeys(named))
    return sorted(named, key=lambda c: not types[c].startswith(NUMERIC))
