"""Operator constraints measured on the original and perturbed files (appendix F thresholds)."""
from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path


from .operators.dbops import columns, qi, tables
from .package import CsvDoc
from .workbook import detect_layout, read_workbook


def _rows(con, table, cols=None):
    cols = cols or columns(con, table)
    from .validator import _norm

    return [tuple(_norm(v) for v in r) for r in con.execute(f"select {', '.join(qi(c) for c in cols)} from {qi(table)}").fetchall()]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _other_files_unchanged(src: Path, out: Path, touched: set[str]) -> bool:
    for f in src.iterdir():
        if f.name in touched:
            continue
        if not (out / f.name).exists() or _sha(f) != _sha(out / f.name):
            return False
    return True


def _cell_sigs(path: Path, sheet: str, by: str):
    ws = read_workbook(path)[sheet]
    lay = detect_layout(ws)
    cells = lambda r, c: (repr(ws.cell(row=r, column=c).value), type(ws.cell(row=r, column=c).value).__name__,  # noqa: E731
                          ws.cell(row=r, column=c).number_format)
    cols = range(lay.first_col, lay.last_col + 1)
    if by == "row":
        return Counter(tuple(cells(r, c) for c in cols) for r in lay.data_rows)
    return Counter(tuple(cells(r, c) for r in list(lay.header_rows) + list(lay.data_rows)) for c in cols)


def measure(name, task, src: Path, out: Path, rec: dict, orig, pert) -> dict:
    p = rec.get("parameters", {})
    fn = MEASURES.get(name)
    checks = fn(task, src, out, p, orig, pert) if fn else {}
    if "file" in p and name not in ("csv_relational_decomposition", "file_missing"):
        checks["file_edit_scope_valid"] = _other_files_unchanged(src, out, {p["file"]})
    return checks


def _ros(task, src, out, p, orig, pert):
    t = p["table"]
    a, b = _rows(orig, t), _rows(pert, t)
    moved = sum(x != y for x, y in zip(a, b)) / max(len(a), 1)
    checks = {"min_rows_5": len(a) >= 5, "moved_at_least_80pct": moved >= 0.8, "row_multiset_preserved": Counter(a) == Counter(b),
              "moved_fraction": round(moved, 3)}
    if p.get("sheet"):
        checks["typed_styled_rows_preserved"] = _cell_sigs(src / p["file"], p["sheet"], "row") == _cell_sigs(out / p["file"], p["sheet"], "row")
    return checks


def _cos(task, src, out, p, orig, pert):
    t = p["table"]
    a, b = columns(orig, t), columns(pert, t)
    moved = sum(x != y for x, y in zip(a, b)) / len(a)
    needed = {c for tb, c in task.fields_used if tb == t}
    checks = {"moved_at_least_60pct": moved >= 0.6, "same_columns": sorted(a) == sorted(b),
              "answer_column_moved": any(a.index(c) != b.index(c) for c in needed if c in a and c in b),
              "moved_fraction": round(moved, 3)}
    if p.get("sheet"):
        checks["typed_styled_columns_preserved"] = _cell_sigs(src / p["file"], p["sheet"], "col") == _cell_sigs(out / p["file"], p["sheet"], "col")
    return checks


def _hss(task, src, out, p, orig, pert):
    a, b = columns(orig, p["table"]), columns(pert, p["table"])
    changed = [(x, y) for x, y in zip(a, b) if x != y]
    return {"one_to_three_headers_replaced": 1 <= len(changed) <= 3, "no_duplicate_header": len(set(b)) == len(b),
            "data_unchanged": _rows(orig, p["table"]) == _rows(pert, p["table"])}


def _evr(task, src, out, p, orig, pert):
    col = p["column"]
    if p["file"].endswith(".xlsx"):
        a = [r[0] for r in orig.execute(f"select cast({qi(col)} as varchar) from {qi(p['table'])}").fetchall()]
        b = [r[0] for r in pert.execute(f"select cast({qi(col)} as varchar) from {qi(p['table'])}").fetchall()]
    else:
        da, db = CsvDoc.read(src / p["file"]), CsvDoc.read(out / p["file"])
        a, b = da.column(col), db.column(col)
        a = [None if da.is_null(x) else x for x in a]
        b = [None if db.is_null(x) else x for x in b]
    present = [i for i, x in enumerate(a) if x is not None]
    changed = sum(a[i] != b[i] for i in present)
    return {"reencoded_at_least_30pct": changed >= 0.3 * max(len(present), 1), "missingness_unchanged":
            [x is None for x in a] == [x is None for x in b], "reencoded_fraction": round(changed / max(len(present), 1), 3)}


def _usc(task, src, out, p, orig, pert):
    a = [r[0] for r in orig.execute(f"select {qi(p['column'])} from {qi(p['table'])}").fetchall()]
    b = [r[0] for r in pert.execute(f"select {qi(p['new_header'])} from {qi(p['table'])}").fetchall()]
    f = float(p["factor"])
    exact = all((x is None) == (y is None) and (x is None or abs(float(x) * f - float(y)) <= 1e-9 * max(1, abs(float(y))))
                for x, y in zip(a, b))
    return {"exact_factor_all_values": exact and len(a) == len(b), "label_updated": p["new_header"] in columns(pert, p["table"])
            and p["column"] not in columns(pert, p["table"])}


def _wlr(task, src, out, p, orig, pert):
    s = p["reshape_specs"][0]
    n = orig.execute(f"select count(*) from {qi(s['table'])}").fetchone()[0]
    m = pert.execute(f"select count(*) from {qi(s['table'])}").fetchone()[0]
    dup = pert.execute(f"select count(*) from (select {', '.join(qi(c) for c in s['id_vars'] + [s['dimension_column']])} "
                       f"from {qi(s['table'])} group by all having count(*) > 1)").fetchone()[0]
    return {"long_rows_equal_rows_times_measures": m == n * len(s["value_vars"]), "long_keys_unique": dup == 0}


def _rd(task, src, out, p, orig, pert):
    files = p["files"]
    key = p["join_key"]
    checks = {"original_file_removed": not (out / f"{p['table']}.csv").exists() and not (out / f"{p['table']}.tsv").exists()}
    for f in files:
        t = Path(f).stem
        n, u, nulls = pert.execute(f"select count(*), count(distinct {qi(key)}), count(*) - count({qi(key)}) from {qi(t)}").fetchone()
        checks[f"{t}_key_unique_not_null"] = n == u and nulls == 0
    needed = {c for _, c in task.fields_used} - {key}
    checks["answer_fields_span_files"] = not any(needed <= set(cols) for cols in files.values())
    allocated = [c for cols in files.values() for c in cols if c != key]
    checks["every_field_in_exactly_one_file"] = sorted(allocated) == sorted(c for c in p["original_columns"] if c != key)
    return checks


def _hhr(task, src, out, p, orig, pert):
    spec = p["sheet_specs"][0]
    wa, wb = read_workbook(src / p["file"])[p["sheet"]], read_workbook(out / p["file"])[p["sheet"]]
    la, lb = detect_layout(wa), detect_layout(wb)
    same = all(wa.cell(row=ra, column=c).value == wb.cell(row=rb, column=c).value
               and wa.cell(row=ra, column=c).number_format == wb.cell(row=rb, column=c).number_format
               for ra, rb in zip(la.data_rows, lb.data_rows) for c in range(la.first_col, la.last_col + 1))
    return {"header_rows_added": len(lb.header_rows) == len(spec["final_header_rows"]),
            "data_start_moved": lb.first_data_row == spec["final_data_start_row"],
            "data_cells_identical": same and len(la.data_rows) == len(lb.data_rows),
            "column_order_unchanged": [p["mapping"].get(c, c) for c in lb.columns] == la.columns}


def _csr(task, src, out, p, orig, pert):
    if p["mode"] == "split":
        return {"at_least_two_new_sheets": len(p["new_sheets"]) >= 2}
    return {"sheets_merged": p["merged_table"] in tables(pert) and not any(t in tables(pert) for t in p["original_tables"].values())}


def _sdc(task, src, out, p, orig, pert):
    cols = columns(pert, p["table"])
    adjacent = cols.index(p["distractor_field"]) == cols.index(p["column"]) + 1
    tgt, dis = qi(p["column"]), qi(p["distractor_field"])
    n_t, n_d, diff = pert.execute(f"select count({tgt}), count({dis}), count(*) filter (where {tgt} <> {dis}) from {qi(p['table'])}").fetchone()
    return {"adjacent_to_target": adjacent, "coverage_at_least_50pct": n_d >= 0.5 * n_t,
            "differs_on_30pct": diff >= 0.3 * n_t, "single_distractor": len(cols) == len(columns(orig, p["table"])) + 1}


def _dfi(task, src, out, p, orig, pert):
    a, b = columns(orig, p["table"]), columns(pert, p["table"])
    added = b[len(a):]
    ok_cov = True
    n = orig.execute(f"select count({qi(p['column'])}) from {qi(p['table'])}").fetchone()[0]
    for c in added:
        cov, distinct = pert.execute(f"select count({qi(c)}), count(distinct {qi(c)}) from {qi(p['table'])}").fetchone()
        ok_cov = ok_cov and cov >= 0.6 * n and distinct > 1
    return {"two_to_five_features": 2 <= len(added) <= 5, "appended_far_right": b[:len(a)] == a and added == p["added"],
            "coverage_at_least_60pct_non_constant": ok_cov}


def _nri(task, src, out, p, orig, pert):
    t, marker = p["table"], p["marker_column"]
    n = orig.execute(f"select count(*) from {qi(t)}").fetchone()[0]
    m = pert.execute(f"select count(*) from {qi(t)}").fetchone()[0]
    k = m - n
    cap = max(1, min(5, n // 10)) if n < 50 else max(1, n // 10)
    obs = pert.execute(f"select count(*) from {qi(t)} where {qi(marker)} = 'observation'").fetchone()[0]
    head_same = _rows(orig, t) == _rows(pert, t, columns(orig, t))[:n]
    return {"appended_1_to_10pct": 1 <= k <= cap, "marker_on_every_row": obs == n, "original_rows_unchanged_in_place": head_same}


def _fdm(task, src, out, p, orig, pert):
    return {"field_removed": p["table"] in tables(pert) and p["column"] not in columns(pert, p["table"])}


def _dm(task, src, out, p, orig, pert):
    col, t = qi(p["column"]), qi(p["table"])
    a = orig.execute(f"select count({col}) from {t}").fetchone()[0]
    b = pert.execute(f"select count({col}) from {t}").fetchone()[0]
    return {"values_nulled": b < a, "structure_unchanged": columns(orig, p["table"]) == columns(pert, p["table"])}


def _ec(task, src, out, p, orig, pert):
    t = qi(p["table"])
    n = orig.execute(f"select count(*) from {t}").fetchone()[0]
    m = pert.execute(f"select count(*) from {t}").fetchone()[0]
    k = pert.execute(f"select count(distinct {qi(p['column'])}) from {t} where cast({qi(p['key_column'])} as varchar) = ?",
                     [p["key_value"]]).fetchone()[0]
    return {"one_conflicting_record": m == n + 1 and k == 2}


def _hc(task, src, out, p, orig, pert):
    cols = columns(pert, p["table"])
    return {"duplicate_header": any(c.startswith(p["column"] + "_") for c in cols) and p["renamed_from"] not in cols}


def _flm(task, src, out, p, orig, pert):
    return {"file_removed": not (out / p["file"]).exists(),
            "other_files_unchanged": _other_files_unchanged(src, out, {p["file"]})}


def _dam(task, src, out, p, orig, pert):
    return {"later_step_rows_nulled": len(p["rows"]) > 0}


MEASURES = {"row_order_shuffle": _ros, "column_order_shuffle": _cos, "header_synonym_substitution": _hss,
            "equivalent_value_reencoding": _evr, "unit_scale_conversion": _usc, "csv_wide_long_reshape": _wlr,
            "csv_relational_decomposition": _rd, "excel_hierarchical_header_relayout": _hhr,
            "excel_cross_sheet_relayout": _csr, "semantic_distractor_column": _sdc, "decoy_feature_pack_injection": _dfi,
            "non_observation_row_injection": _nri, "field_missing": _fdm, "data_missing": _dm, "evidence_conflict": _ec,
            "header_conflict": _hc, "file_missing": _flm, "deep_analysis_missing": _dam}
