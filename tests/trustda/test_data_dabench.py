"""DABench importer on the shared dev set, and bad-input handling."""
from __future__ import annotations

import json
import shutil

import pytest

from evalhouse.errors import BadInput
from evalhouse.trustda.answer_path import load_package, parse_answer
from evalhouse.trustda.dabench import import_dabench
from evalhouse.trustda.package import CsvDoc, package_dir


def test_imports_all_dev_questions(warehouse, dabench_dir):
    tasks, issues = import_dabench(dabench_dir)
    assert len(tasks) == 133
    assert len({t.files[0] for t in tasks}) == 26
    assert not [i for i in issues if "parse" in i["reason"] or "ragged" in i["reason"]]
    t9 = next(t for t in tasks if t.source_task_id == "dabench:9")
    assert t9.reference_pairs == [("mean_close_price", "570.68")]
    assert t9.fields_used and t9.fields_used[0][1] == "Close Price"
    assert parse_answer(t9.reference_answer) == {"mean_close_price": "570.68"}
    con = load_package(package_dir(t9.package_path))
    mean = con.execute('select round(avg("Close Price"), 2) from "GODREJIND"').fetchone()[0]
    con.close()
    assert abs(mean - 570.68) < 1e-6  # the label is reproducible from the imported package


def test_csv_round_trip_keeps_bytes(dabench_dir, tmp_path):
    """Delimiter, BOM, line endings (including old-Mac CR), NULL spelling and every cell survive."""
    identical = 0
    for path in sorted((dabench_dir / "tables").glob("*.csv")):
        doc = CsvDoc.read(path)
        doc.write(tmp_path / path.name)
        assert CsvDoc.read(tmp_path / path.name).rows == doc.rows
        if '"' not in path.read_text(encoding="utf-8-sig"):
            assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name
            identical += 1
    assert identical >= 10


def _copy_layout(src, dst, n=3):
    (dst / "tables").mkdir(parents=True)
    qs = [json.loads(x) for x in (src / "questions.jsonl").read_text().splitlines()[:n]]
    ls = [json.loads(x) for x in (src / "labels.jsonl").read_text().splitlines()[:n]]
    for q in qs:
        shutil.copy(src / "tables" / q["file_name"], dst / "tables" / q["file_name"])
    return qs, ls


def test_bad_inputs_are_reported_and_skipped(warehouse, dabench_dir, tmp_path):
    qs, ls = _copy_layout(dabench_dir, tmp_path)
    ragged = tmp_path / "tables" / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3\n")
    latin = tmp_path / "tables" / "latin.csv"
    latin.write_bytes("name,v\ncaf\xe9,1\n".encode("latin-1"))
    extra = [{"id": 9001, "question": 'Mean of "b"?', "file_name": "ragged.csv", "format": "@m[v]"},
             {"id": 9002, "question": 'Mean of "v"?', "file_name": "latin.csv", "format": "@m[v]"},
             {"id": 9003, "question": "x", "file_name": "absent.csv", "format": "@m[v]"}]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in qs + extra) + "\n{not json\n")
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in ls + [
        {"id": i, "common_answers": [["m", "1"]]} for i in (9001, 9002, 9003)]) + "\n")
    tasks, issues = import_dabench(tmp_path)
    assert {t.source_task_id for t in tasks} == {f"dabench:{q['id']}" for q in qs}
    by_file = {i["file"]: i["reason"] for i in issues}
    assert "row 3" in by_file["ragged.csv"] and "ragged" in by_file["ragged.csv"]
    assert "UTF-8" in by_file["latin.csv"]
    assert "not found" in by_file["absent.csv"]
    assert any("invalid JSON" in i["reason"] for i in issues)


def test_corrupt_workbook_names_the_file(tmp_path):
    bad = tmp_path / "book.xlsx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(BadInput, match="book.xlsx"):
        load_package(tmp_path)
