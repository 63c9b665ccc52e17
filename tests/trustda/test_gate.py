"""The evidence gate on real DABench tables and on packages perturbed the way the operators do."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from openpyxl import Workbook

from evalhouse.trustda.gate import check

CLOSE_Q = 'Calculate the mean value of the "Close Price" column.'


@pytest.fixture(scope="module")
def tables(shared_data) -> Path:
    return shared_data / "dabench-dev" / "tables"


@pytest.fixture
def godrej(tables, tmp_path) -> pd.DataFrame:
    return pd.read_csv(tables / "GODREJIND.csv")


def _package(tmp_path: Path, frames: dict[str, pd.DataFrame], name: str = "pkg") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for file, frame in frames.items():
        frame.to_csv(folder / file, index=False)
    return folder


def _kinds(result) -> set[str]:
    return {f.kind for f in result.findings}


def test_original_dabench_questions_pass(shared_data, tables):
    refused = []
    with open(shared_data / "dabench-dev" / "questions.jsonl") as fh:
        for q in map(json.loads, fh):
            result = check(tables / q["file_name"], f"{q['question']}\n{q['constraints']}")
            if not result.passed:
                refused.append((q["id"], result.summary()))
    assert len(refused) <= 2, refused  # false refusals on unperturbed tasks


def test_original_package_passes(tmp_path, godrej):
    assert check(_package(tmp_path, {"GODREJIND.csv": godrej}), CLOSE_Q).passed


def test_removed_field_is_a_missing_field(tmp_path, godrej):
    result = check(_package(tmp_path, {"GODREJIND.csv": godrej.drop(columns=["Close Price"])}), CLOSE_Q)
    assert not result.passed
    finding = next(f for f in result.blocking if f.kind == "missing_field")
    assert "Close Price" in finding.requirement and finding.file == "GODREJIND.csv"


def test_field_the_question_asks_to_create_is_not_required(tmp_path, godrej):
    q = 'Create a new feature called "Price Spread" from "High Price" minus "Low Price" and report its mean.'
    assert check(_package(tmp_path, {"GODREJIND.csv": godrej}), q).passed


def test_nulled_answer_column_is_reported_with_rows(tmp_path, godrej):
    frame = godrej.copy()
    frame["Close Price"] = None
    result = check(_package(tmp_path, {"GODREJIND.csv": frame}), CLOSE_Q)
    finding = next(f for f in result.blocking if f.kind == "nulled_values")
    assert finding.columns == ["Close Price"] and finding.rows[:3] == [1, 2, 3]


def test_nulls_on_the_selected_rows_only(tmp_path, godrej):
    frame = godrej.copy()
    frame.loc[frame["Date"] == "16-May-2017", "Close Price"] = None
    q = 'What was the "Close Price" on "16-May-2017"?'
    result = check(_package(tmp_path, {"GODREJIND.csv": frame}), q)
    finding = next(f for f in result.blocking if f.kind == "nulled_values")
    assert finding.rows == [2]


def test_duplicate_header_is_ambiguous(tmp_path, godrej):
    folder = tmp_path / "dup"
    folder.mkdir()
    text = (Path(tmp_path) / "x").write_text("")  # noqa: F841
    frame = godrej.copy()
    header = ",".join(f'"{c}"' for c in frame.columns).replace('"Last Price"', '"Close Price"')
    body = frame.to_csv(index=False, header=False)
    (folder / "GODREJIND.csv").write_text(header + "\n" + body)
    result = check(folder, CLOSE_Q)
    finding = next(f for f in result.blocking if f.kind == "duplicate_header")
    assert finding.columns == ["Close Price", "Close Price"]


def test_conflicting_duplicate_record_is_reported(tmp_path, godrej):
    frame = godrej.copy()
    twin = frame.iloc[[10]].copy()
    twin["Close Price"] = twin["Close Price"] + 25
    frame = pd.concat([frame, twin], ignore_index=True)
    result = check(_package(tmp_path, {"GODREJIND.csv": frame}), CLOSE_Q)
    finding = next(f for f in result.blocking if f.kind == "conflicting_values")
    assert finding.columns == ["Close Price"] and finding.rows == [11, len(frame)]


def test_marker_rows_are_advisory(tmp_path, godrej):
    frame = godrej.copy()
    frame["record_type"] = "observation"
    summary = frame.iloc[[0]].copy()
    summary["record_type"] = "summary_row"
    frame = pd.concat([frame, summary], ignore_index=True)
    result = check(_package(tmp_path, {"GODREJIND.csv": frame}), CLOSE_Q)
    assert result.passed
    finding = next(f for f in result.findings if f.kind == "non_observation_rows")
    assert finding.rows == [len(frame)] and finding.columns == ["record_type"]


def test_unit_label_and_distractor_are_advisory(tmp_path, godrej):
    frame = godrej.rename(columns={"Turnover": "Turnover (thousands)"})
    frame.insert(9, "Close Price Adjusted", frame["Close Price"] * 0.98)
    q = CLOSE_Q + ' Also report the mean "Turnover".'
    result = check(_package(tmp_path, {"GODREJIND.csv": frame}), q)
    assert result.passed
    assert {"unit_label", "distractor_column"} <= _kinds(result)


def test_missing_file_named_in_question(tmp_path, godrej):
    q = 'Join GODREJIND.csv with sectors.csv on "Symbol" and average the "Close Price".'
    result = check(_package(tmp_path, {"GODREJIND.csv": godrej}), q)
    finding = next(f for f in result.blocking if f.kind == "missing_file")
    assert finding.file == "sectors.csv"


def test_gap_in_a_numbered_file_series(tmp_path, godrej):
    folder = _package(tmp_path, {"prices_2019.csv": godrej, "prices_2021.csv": godrej})
    result = check(folder, CLOSE_Q)
    assert any(f.kind == "missing_file" and f.file == "prices_2020.csv" for f in result.blocking)


def _workbook(path: Path, rows: list[list], merges: list[str] = ()) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "Sales"
    for row in rows:
        ws.append(row)
    for m in merges:
        ws.merge_cells(m)
    wb.save(path)


def test_excel_multi_level_header_is_read_as_parent_child(tmp_path):
    folder = tmp_path / "xl"
    folder.mkdir()
    _workbook(folder / "sales.xlsx", [["Quarterly sales report"], ["region", "2023", None, "2024", None],
                                      [None, "Q1", "Q2", "Q1", "Q2"], ["north", 1, 2, 3, 4], ["south", 5, 6, 7, 8]],
              merges=["B2:C2", "D2:E2"])
    result = check(folder, 'What is the total "2024 / Q1" sales?')
    assert result.passed
    assert "multi_level_header" in _kinds(result)


def test_excel_repeated_subheaders_without_parents_lose_structure(tmp_path):
    folder = tmp_path / "xl"
    folder.mkdir()
    _workbook(folder / "sales.xlsx", [["region", "Q1", "Q2", "Q1", "Q2"], ["north", 1, 2, 3, 4], ["south", 5, 6, 7, 8]])
    result = check(folder, 'What are the total "Q1" sales in 2024?')
    assert "missing_structural_context" in {f.kind for f in result.blocking}


def test_gate_reads_only_data_files(tmp_path, godrej):
    folder = _package(tmp_path, {"GODREJIND.csv": godrej.drop(columns=["Close Price"])})
    before = check(folder, CLOSE_Q).to_dict()
    (folder / "protocol.json").write_text(json.dumps({"operator": "field_missing", "gold_reason": "x"}))
    (folder / "README.txt.md").write_text("operator: field_missing")
    after = check(folder, CLOSE_Q).to_dict()
    assert before["findings"] == after["findings"]
    assert after["files"] == ["GODREJIND.csv"]


def test_cli_reports_findings_and_exit_status(tmp_path, godrej):
    folder = _package(tmp_path, {"GODREJIND.csv": godrej.drop(columns=["Close Price"])})
    exe = Path(sys.executable).parent / "evalhouse"
    refused = subprocess.run([str(exe), "gate", str(folder), "--question", CLOSE_Q], capture_output=True, text=True)
    assert refused.returncode == 1 and "missing_field" in refused.stdout and "GODREJIND.csv" in refused.stdout
    shutil.rmtree(folder)
    folder = _package(tmp_path, {"GODREJIND.csv": godrej})
    passed = subprocess.run([str(exe), "gate", str(folder), "-q", CLOSE_Q, "--json"], capture_output=True, text=True)
    assert passed.returncode == 0 and json.loads(passed.stdout)["passed"] is True
    missing = subprocess.run([str(exe), "gate", str(tmp_path / "nope"), "-q", "x"], capture_output=True, text=True)
    assert missing.returncode == 2 and "no package" in missing.stderr


def test_a_field_in_another_unit_is_a_note_not_a_refusal(tmp_path, godrej):
    frame = godrej.rename(columns={"Close Price": "close_price_usd"})
    q = 'What is the mean "close_price_1000usd" (closing price in thousands of dollars)?'
    result = check(_package(tmp_path, {"GODREJIND.csv": frame}), q)
    assert result.passed and "unit_label" in _kinds(result)


def test_a_header_spelled_out_by_the_question_is_a_synonym(tmp_path, godrej):
    frame = godrej.rename(columns={"Close Price": "closing_price"})
    q = 'What is the mean "close_px" (closing price of the day)?'
    result = check(_package(tmp_path, {"GODREJIND.csv": frame}), q)
    assert result.passed and "header_synonym" in _kinds(result)
    unrelated = godrej.rename(columns={"Close Price": "settlement_level"})
    assert not check(_package(tmp_path, {"GODREJIND.csv": unrelated}, "other"), q).passed


def test_a_field_listed_only_in_a_data_dictionary_is_missing(tmp_path):
    folder = tmp_path / "xl"
    folder.mkdir()
    wb = Workbook()
    data = wb.active
    data.title = "Data"
    for row in [["id", "mass_g"], [1, 10.0], [2, 12.5], [3, 9.0]]:
        data.append(row)
    dictionary = wb.create_sheet("Variables")
    for row in [["variable", "description"], ["mass_g", "body mass"], ["length_mm", "body length"]]:
        dictionary.append(row)
    wb.save(folder / "animals.xlsx")
    result = check(folder, 'What is the average "length_mm" (body length in millimetres)?')
    assert any(f.kind == "missing_field" for f in result.blocking)


def test_files_the_question_combines_but_the_package_lacks(tmp_path, godrej):
    q = 'Across the files, what is the mean "Close Price" of companies in the "Chemicals" sector?'
    result = check(_package(tmp_path, {"GODREJIND.csv": godrej}), q)
    assert any(f.kind == "missing_file" for f in result.blocking)


def test_a_year_no_sheet_header_or_value_carries(tmp_path):
    folder = tmp_path / "xl"
    folder.mkdir()
    wb = Workbook()
    for i, title in enumerate(["Sheet1", "Sheet2"]):
        ws = wb.active if i == 0 else wb.create_sheet(title)
        ws.title = title
        for row in [["country", "life_expectancy"], ["A", 70.0 + i], ["B", 60.0 + i]]:
            ws.append(row)
    wb.save(folder / "by_year.xlsx")
    result = check(folder, "What is the average life expectancy across countries in 2007?")
    assert any(f.kind == "missing_structural_context" for f in result.blocking)
    wb["Sheet2"].title = "2007"
    wb.save(folder / "by_year.xlsx")
    assert check(folder, "What is the average life expectancy across countries in 2007?").passed
