"""The twelve robustness operators (answer preserved; representation or surroundings change)."""
from __future__ import annotations

import math
from decimal import Decimal

from ..edit import open_table
from ..package import table_name_for
from .base import (
    DESCRIPTIONS, ORDER_WORDS, ROLES, SYNONYMS, UNITS, Ctx, NotApplicable, TargetsPrimaryField, ext_of, locate,
                   primary_field, register, used_columns, used_tables)
from .dbops import columns, drop_columns, qi, rename, replace_expr

CSV_EXT = (".csv", ".tsv")
TABLE_EXT = (".csv", ".tsv", ".xlsx")


def _flat_header(tbl) -> bool:
    return tbl.kind == "csv" or len(tbl.layout.header_rows) == 1


def _target_table(ctx_or_task, table=None):
    task = getattr(ctx_or_task, "task", ctx_or_task)
    table = table or primary_field(task)[0]
    return (table, *locate(task, table))


@register("row_order_shuffle", "ROS", "robustness", "L0", 1, TABLE_EXT,
          "Reorder detail rows while preserving the typed row multiset, field bindings and answer.")
class RowOrderShuffle:
    def select(self, task):
        if ORDER_WORDS.search(task.question):
            raise NotApplicable("the question depends on row positions")
        table, file, sheet = _target_table(task)
        return {"table": table, "file": file, "sheet": sheet}

    def construct(self, ctx: Ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        n = tbl.n_rows
        if n < 5:
            raise NotApplicable(f"only {n} detail rows (needs at least 5)")
        order = list(range(n))
        for _ in range(20):
            ctx.rng.shuffle(order)
            if sum(i != j for i, j in enumerate(order)) >= 0.8 * n:
                break
        else:
            raise NotApplicable("could not move 80% of rows")
        tbl.permute_rows(order)
        tbl.save()
        moved = sum(i != j for i, j in enumerate(order)) / n
        return {"edit_summary": f"shuffled {n} rows of {t['file']} ({moved:.0%} moved)",
                "parameters": {"file": t["file"], "sheet": t["sheet"], "table": t["table"], "seeded_order": order,
                               "moved_fraction": moved}}

    def recover(self, con, rec):
        pass

    def misuse(self, con, rec):
        return False


@register("column_order_shuffle", "COS", "robustness", "L0", 2, TABLE_EXT,
          "Reorder flat-table columns while preserving each named column, record relation and answer.")
class ColumnOrderShuffle:
    def select(self, task):
        table, file, sheet = _target_table(task)
        return {"table": table, "file": file, "sheet": sheet, "needed": used_columns(task, table)}

    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        if not _flat_header(tbl):
            raise NotApplicable("multi-level header (column shuffle needs a flat header)")
        n = len(tbl.headers)
        if n < 3:
            raise NotApplicable(f"only {n} columns")
        needed = {tbl.col(c) for c in t["needed"] if c in tbl.headers}
        order = list(range(n))
        for _ in range(50):
            ctx.rng.shuffle(order)
            moved = sum(i != j for i, j in enumerate(order))
            if moved >= 0.6 * n and any(order[i] != i for i in range(n) if order[i] in needed):
                break
        else:
            raise NotApplicable("could not move 60% of columns including an answer column")
        before = list(tbl.headers)
        tbl.permute_cols(order)
        tbl.save()
        return {"edit_summary": f"reordered the {n} columns of {t['file']}",
                "parameters": {"file": t["file"], "sheet": t["sheet"], "table": t["table"],
                               "original_order": before, "new_order": [before[i] for i in order],
                               "moved_fraction": moved / n}}

    def recover(self, con, rec):
        p = rec["parameters"]
        con.execute(f"create or replace table {qi(p['table'])} as select "
                    f"{', '.join(qi(c) for c in p['original_order'])} from {qi(p['table'])}")

    def misuse(self, con, rec):
        return False


@register("header_synonym_substitution", "HSS", "robustness", "L0", 3, TABLE_EXT,
          "Replace answer-relevant headers with strictly equivalent, uniquely resolvable business synonyms.")
class HeaderSynonymSubstitution:
    def select(self, task):
        for table in used_tables(task):
            for col in used_columns(task, table):
                if col in SYNONYMS:
                    return {"table": table, "file": locate(task, table)[0], "sheet": locate(task, table)[1],
                            "column": col, "synonym": SYNONYMS[col]}
        raise NotApplicable("no answer field has a curated strict synonym")

    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        if t["column"] not in tbl.headers:
            raise NotApplicable(f"column {t['column']} not found")
        if t["synonym"] in tbl.headers:
            raise NotApplicable("the synonym already names a column")
        tbl.rename(tbl.col(t["column"]), t["synonym"])
        tbl.save()
        col, syn = t["column"], t["synonym"]
        return {"edit_summary": f"renamed header {col} to {syn} in {t['file']}",
                "parameters": {**t, "mapping": {col: syn}},
                "semantic_contract": {
                    "field_bindings": [{"question_concept": DESCRIPTIONS.get(col, col), "target_field": col,
                                        "transformed_field": syn, "question_evidence": f'the question names "{col}"',
                                        "selection_deviation_reason": None}],
                    "synonym_audit": [{"old_header": col, "new_header": syn, "same_concept": True, "same_metric_scope": True,
                                       "same_granularity": True, "same_time_basis": True, "same_unit": True,
                                       "can_coexist_as_distinct": False, "evidence": "curated synonym in the table catalog"}],
                    "interpretation_risk": {"correct_interpretation": f"{syn} is the field the question calls {col}",
                                            "plausible_incorrect_interpretation": f"bind {col} by exact header name only",
                                            "why_plausible": "the question quotes the old header",
                                            "incorrect_outcome": "the field is not found and the analysis fails or binds another field",
                                            "outcome_differs": True}}}

    def recover(self, con, rec):
        p = rec["parameters"]
        rename(con, p["table"], p["synonym"], p["column"])

    def misuse(self, con, rec):
        return True  # the exact-name path runs on the renamed header as is


def _thousands(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}"


@register("equivalent_value_reencoding", "EVR", "robustness", "L1", 5, TABLE_EXT,
          "Reencode key values in a reversible, unambiguous representation to test value normalization.")
class EquivalentValueReencoding:
    def select(self, task):
        profile = task.meta.get("value_profile")
        for table in used_tables(task):
            for col in used_columns(task, table):
                if ROLES.get(col) == "key":
                    continue
                if profile is not None and not profile.get(f"{table}.{col}"):
                    continue
                file, sheet = locate(task, table)
                return {"table": table, "file": file, "sheet": sheet, "column": col}
        raise NotApplicable("no answer field has an unambiguous reencoding (values >= 1000, percent field or yes/no labels)")

    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        c = tbl.col(t["column"])
        nums = tbl.numeric(c)
        present = [i for i, v in enumerate(nums) if v is not None]
        values = [tbl.get(r, c) for r in range(tbl.n_rows)]
        subtype, mapping, spelled = None, {}, None
        if present and sum(abs(nums[i]) >= 1000 for i in present) >= 0.3 * len(present):
            subtype = "thousands_separator"
            dec = tbl.decimals(c)
            cand = [i for i in present if abs(nums[i]) >= 1000]
            mapping = {i: _thousands(nums[i], dec) for i in cand}
        elif present and t["column"].endswith("_pct"):
            subtype = "percent_string"
            dec = tbl.decimals(c)
            mapping = {i: (tbl.encode_number(nums[i], c) if tbl.kind == "csv" else f"{nums[i]:.{max(dec, 0)}f}") + "%" for i in present}
        else:
            labels = {str(v).strip().lower() for v in values if v is not None and not (tbl.kind == "csv" and tbl.doc.is_null(v))}
            if labels and labels <= {"yes", "no"}:
                subtype = "boolean_words"
                spelled = {str(v).strip().lower(): str(v).strip() for v in values if v is not None and str(v).strip()}
                mapping = {i: ("true" if str(v).strip().lower() == "yes" else "false") for i, v in enumerate(values)
                           if v is not None and str(v).strip().lower() in ("yes", "no")}
        if not subtype:
            raise NotApplicable("no unambiguous reencoding subtype applies (needs values >= 1000, a percent field or yes/no labels)")
        chosen = sorted(mapping)
        ctx.rng.shuffle(chosen)
        k = max(1, math.ceil(0.6 * len(chosen)))
        chosen = sorted(chosen[:k])
        if len(chosen) < 0.3 * max(len(present) if subtype != "boolean_words" else len(mapping), 1):
            raise NotApplicable("fewer than 30% of relevant cells can be reencoded")
        for i in chosen:
            tbl.set(i, c, mapping[i])
            if tbl.kind == "xlsx":
                tbl._cell(i, c).number_format = "@"
        tbl.save()
        return {"edit_summary": f"reencoded {len(chosen)} cells of {t['column']} as {subtype}",
                "parameters": {**t, "subtype": subtype, "cells": len(chosen), "rows": chosen,
                               "labels": spelled if subtype == "boolean_words" else None},
                "semantic_contract": {"interpretation_risk": {
                    "correct_interpretation": f"normalize {subtype} values of {t['column']} before computing",
                    "plausible_incorrect_interpretation": "treat values that do not parse as numbers (or labels) as missing",
                    "why_plausible": "most cells still look like plain values", "outcome_differs": True}}}

    def recover(self, con, rec):
        p = rec["parameters"]
        col = qi(p["column"])
        if p["subtype"] == "thousands_separator":
            replace_expr(con, p["table"], p["column"], f"cast(replace(cast({col} as varchar), ',', '') as double)")
        elif p["subtype"] == "percent_string":
            replace_expr(con, p["table"], p["column"], f"cast(replace(cast({col} as varchar), '%', '') as double)")
        else:
            labels = p.get("labels") or {"yes": "yes", "no": "no"}
            yes, no = (labels.get(k, k).replace("'", "''") for k in ("yes", "no"))
            replace_expr(con, p["table"], p["column"],
                         f"case lower(cast({col} as varchar)) when 'true' then '{yes}' when 'false' then '{no}' else cast({col} as varchar) end")

    def misuse(self, con, rec):
        p = rec["parameters"]
        if p["subtype"] == "boolean_words":
            return True  # comparing labels as written
        replace_expr(con, p["table"], p["column"], f"try_cast(cast({qi(p['column'])} as varchar) as double)")
        return True


@register("unit_scale_conversion", "USC", "robustness", "L1", 6, TABLE_EXT,
          "Apply an exact unit or magnitude conversion to a key numeric field and update the unit label.")
class UnitScaleConversion:
    def select(self, task):
        first = primary_field(task)
        pairs = [first] + [(t, c) for t in used_tables(task) for c in used_columns(task, t) if (t, c) != first]
        for table, col in pairs:
            if col in UNITS:
                file, sheet = locate(task, table)
                new, factor, desc = UNITS[col]
                return {"table": table, "file": file, "sheet": sheet, "column": col, "new_header": new,
                        "factor": factor, "new_unit": desc}
        raise NotApplicable("no answer field has an explicit unit with an exact conversion")

    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        c = tbl.col(t["column"])
        if t["new_header"] in tbl.headers:
            raise NotApplicable("the converted header already exists")
        factor = Decimal(str(t["factor"]))
        extra = max(0, -factor.normalize().as_tuple().exponent)
        for r in range(tbl.n_rows):
            if tbl.is_null(r, c):
                continue
            v = tbl.get(r, c)
            if tbl.kind == "csv":
                try:
                    tbl.set(r, c, _decimal_text(Decimal(v) * factor))
                except ArithmeticError:
                    raise NotApplicable(f"value {v!r} is not numeric") from None
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                x = Decimal(repr(v)) * factor
                tbl.set(r, c, int(x) if x == x.to_integral_value() and isinstance(v, int) and factor >= 1 else float(x))
        tbl.rename(c, t["new_header"])
        tbl.save()
        return {"edit_summary": f"converted {t['column']} by x{t['factor']} and relabelled it {t['new_header']}",
                "parameters": {**t, "formula": f"{t['new_header']} = {t['column']} * {t['factor']}", "precision": "exact decimal",
                               "extra_decimals": extra},
                "semantic_contract": {"interpretation_risk": {
                    "correct_interpretation": f"{t['new_header']} holds {t['new_unit']}; convert back before answering",
                    "plausible_incorrect_interpretation": f"read {t['new_header']} as if it were still {t['column']}",
                    "why_plausible": "same field with a different unit suffix", "outcome_differs": True}}}

    def recover(self, con, rec):
        p = rec["parameters"]
        replace_expr(con, p["table"], p["new_header"], f"{qi(p['new_header'])} / {float(p['factor'])!r}")
        rename(con, p["table"], p["new_header"], p["column"])

    def misuse(self, con, rec):
        p = rec["parameters"]
        rename(con, p["table"], p["new_header"], p["column"])
        return True


def _decimal_text(x: Decimal) -> str:
    text = format(x.normalize(), "f")
    return text


@register("csv_wide_long_reshape", "WLR", "robustness", "L2", 7, CSV_EXT,
          "Perform a reversible, non-aggregating wide/long transformation for CSV or TSV data.")
class WideLongReshape:
    def select(self, task):
        table, file, sheet = _target_table(task)
        if ext_of(file) not in CSV_EXT:
            raise NotApplicable("not a CSV file")
        return {"table": table, "file": file}

    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"])
        doc = tbl.doc
        numeric = [i for i, h in enumerate(doc.header)
                   if all(doc.is_null(r[i]) or _is_number(r[i]) for r in doc.rows) and any(not doc.is_null(r[i]) for r in doc.rows)]
        ids = [i for i in range(len(doc.header)) if i not in numeric]
        key_ok = [i for i in ids if len({r[i] for r in doc.rows}) == len(doc.rows) and not any(doc.is_null(r[i]) for r in doc.rows)]
        if not key_ok:
            # a numeric unique identifier column can serve as the entity key
            key_num = [i for i in numeric if ROLES.get(doc.header[i]) == "key"]
            if not key_num:
                raise NotApplicable("no unique, non-null entity key for the id columns")
            ids = sorted(ids + key_num)
            numeric = [i for i in numeric if i not in key_num]
        if len(numeric) < 2:
            raise NotApplicable("fewer than two measure columns to stack")
        measure, value = "measure", "value"
        if measure in doc.header or value in doc.header:
            raise NotApplicable("measure/value names already used")
        value_vars = [doc.header[j].strip() for j in numeric]
        header = [doc.header[i] for i in ids] + [measure, value]
        rows = [[r[i] for i in ids] + [doc.header[j], r[j]] for r in doc.rows for j in numeric]
        id_vars = [h.strip() for h in header[:-2]]
        rows = [r[:-2] + [r[-2].strip(), r[-1]] for r in rows]
        doc.header, doc.rows = header, rows
        tbl.save()
        return {"edit_summary": f"stacked {len(numeric)} measure columns of {t['file']} into long form",
                "parameters": {"reshape_specs": [{"file": t["file"], "table": t["table"], "direction": "wide_to_long",
                                                  "id_vars": id_vars, "value_vars": value_vars,
                                                  "dimension_column": measure, "value_column": value}]}}

    def recover(self, con, rec):
        s = rec["parameters"]["reshape_specs"][0]
        t, ids = qi(s["table"]), ", ".join(qi(c) for c in s["id_vars"])
        sel = ", ".join([qi(c) for c in s["id_vars"]] + [
            f"max(case when {qi(s['dimension_column'])} = '{v.replace(chr(39), chr(39) * 2)}' then {qi(s['value_column'])} end) as {qi(v)}"
            for v in s["value_vars"]])
        con.execute(f"create or replace table {t} as select {sel} from {t} group by {ids}")

    def misuse(self, con, rec):
        return False


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


@register("csv_relational_decomposition", "RD", "robustness", "L2", 8, CSV_EXT,
          "Decompose one CSV into losslessly joinable relations using safe primary/foreign keys.")
class RelationalDecomposition:
    def select(self, task):
        tables = used_tables(task)
        if len(tables) != 1:
            raise NotApplicable("the task already spans several files")
        table, file, sheet = _target_table(task)
        if ext_of(file) not in CSV_EXT:
            raise NotApplicable("not a CSV file")
        needed = used_columns(task, table)
        if len([c for c in needed if ROLES.get(c) != "key"]) < 2:
            raise NotApplicable("the answer needs a single field: no split can require a join")
        return {"table": table, "file": file, "needed": needed}

    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"])
        doc = tbl.doc
        keys = [h for i, h in enumerate(doc.header) if _id_like(h)
                and len({r[i] for r in doc.rows}) == len(doc.rows) and not any(doc.is_null(r[i]) for r in doc.rows)]
        if not keys:
            raise NotApplicable("no stable, unique, non-null key column")
        key = keys[0]
        others = [h for h in doc.header if h != key]
        needed = [c for c in t["needed"] if c != key]
        if len(needed) >= 2:
            left = [h for h in others if h == needed[0] or (ROLES.get(h) in ("cat", "text") and h not in needed[1:])]
        else:
            left = [h for h in others if ROLES.get(h) in ("cat", "text") and h not in needed]
            if not left or not needed:
                left = [needed[0]] if needed else others[:1]
        right = [h for h in others if h not in left]
        if not left or not right:
            raise NotApplicable("fields cannot be split into two natural relations")
        stem = tbl.path.stem
        ext = tbl.path.suffix
        files = {f"{stem}_entities{ext}": [key] + left, f"{stem}_measures{ext}": [key] + right}
        for name, cols in files.items():
            part = doc.copy()
            idx = [doc.header.index(c) for c in cols]
            part.header = cols
            part.rows = [[r[i] for i in idx] for r in doc.rows]
            part.write(ctx.out / name)
        tbl.path.unlink()
        return {"edit_summary": f"split {t['file']} into {', '.join(files)} joined on {key}",
                "output_files": sorted(files),
                "parameters": {"join_key": key, "table": t["table"], "original_columns": doc.header,
                               "files": {n: c for n, c in files.items()}, "cardinality": "one-to-one"}}

    def recover(self, con, rec):
        p = rec["parameters"]
        (fa, ca), (fb, cb) = list(p["files"].items())
        ta, tb = table_name_for(fa), table_name_for(fb)
        key = qi(p["join_key"])
        src = {c: "a" for c in ca}
        src.update({c: "b" for c in cb if c != p["join_key"]})
        sel = ", ".join(f"{src[c]}.{qi(c)}" for c in p["original_columns"])
        con.execute(f"create or replace table {qi(p['table'])} as select {sel} from {qi(ta)} a join {qi(tb)} b on a.{key} = b.{key}")
        con.execute(f"drop table {qi(ta)}")
        con.execute(f"drop table {qi(tb)}")

    def misuse(self, con, rec):
        return False


DISTRACTOR_SCOPES = (("projected", 0.08, 0.25), ("previous_year", -0.25, -0.06), ("adjusted", 0.05, 0.2))


def _perturbed_values(tbl, c, rng, low, high, decimals=None):
    nums = tbl.numeric(c)
    d = tbl.decimals(c) if decimals is None else decimals
    out = []
    for v in nums:
        if v is None:
            out.append(tbl.encode_number(None))
        else:
            x = v * (1 + rng.uniform(low, high))
            out.append(tbl.encode_number(round(x, max(d, 1)) if d else round(x), c, d))
    return out


@register("semantic_distractor_column", "SDC", "robustness", "L0", 4, TABLE_EXT,
          "Add one nearby, semantically related but excludable distractor column whose misuse changes the answer.")
class SemanticDistractorColumn(TargetsPrimaryField):
    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        if not _flat_header(tbl):
            raise NotApplicable("multi-level header")
        c = tbl.col(t["column"])
        if sum(v is not None for v in tbl.numeric(c)) < 3:
            raise NotApplicable("target field is not numeric")
        scope, low, high = DISTRACTOR_SCOPES[ctx.variant % len(DISTRACTOR_SCOPES)]
        name = f"{scope}_{t['column']}"
        if name in tbl.headers:
            raise NotApplicable("distractor name already exists")
        values = _perturbed_values(tbl, c, ctx.rng, low, high)
        tbl.insert_col(c + 1, name, values, like=c)
        tbl.save()
        return {"edit_summary": f"inserted distractor column {name} next to {t['column']}",
                "parameters": {**t, "distractor_field": name},
                "semantic_contract": {"target_concept": DESCRIPTIONS.get(t["column"], t["column"]), "target_field": t["column"],
                                      "distractor_field": name, "question_binding_quote": f'"{t["column"]}"',
                                      "exclusion_evidence": f"the question names {t['column']}; {name} is a {scope.replace('_', ' ')} figure",
                                      "counterfactual_method": f"use {name} in place of {t['column']}"}}

    def recover(self, con, rec):
        p = rec["parameters"]
        drop_columns(con, p["table"], [p["distractor_field"]])

    def misuse(self, con, rec):
        p = rec["parameters"]
        drop_columns(con, p["table"], [p["column"]])
        rename(con, p["table"], p["distractor_field"], p["column"])
        return True


DECOY_KINDS = ("forecast", "rounded", "rank", "zscore", "previous")


@register("decoy_feature_pack_injection", "DFI", "robustness", "L3", 11, TABLE_EXT,
          "Append two to five related, type-compatible decoy features; using the pack changes the result.")
class DecoyFeaturePack(TargetsPrimaryField):
    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        if not _flat_header(tbl):
            raise NotApplicable("multi-level header")
        c = tbl.col(t["column"])
        nums = tbl.numeric(c)
        present = [v for v in nums if v is not None]
        if len(present) < 3:
            raise NotApplicable("target field is not numeric")
        k = ctx.rng.randint(2, 5)
        kinds = list(DECOY_KINDS)
        ctx.rng.shuffle(kinds)
        kinds = sorted(kinds[:k], key=DECOY_KINDS.index)
        if "forecast" not in kinds and "previous" not in kinds:
            kinds[0] = "forecast"
        mean = sum(present) / len(present)
        sd = (sum((v - mean) ** 2 for v in present) / max(len(present) - 1, 1)) ** 0.5 or 1.0
        order = sorted(set(present), reverse=True)
        features = []
        for kind in kinds:
            name = f"{t['column']}_{kind}"
            if name in tbl.headers:
                raise NotApplicable(f"{name} already exists")
            if kind == "forecast":
                vals = _perturbed_values(tbl, c, ctx.rng, 0.03, 0.15)
            elif kind == "previous":
                vals = _perturbed_values(tbl, c, ctx.rng, -0.2, -0.04)
            elif kind == "rounded":
                vals = [tbl.encode_number(None) if v is None else tbl.encode_number(float(round(v, -1) if abs(v) >= 50 else round(v)), None, 0) for v in nums]
            elif kind == "rank":
                vals = [tbl.encode_number(None) if v is None else tbl.encode_number(float(order.index(v) + 1), None, 0) for v in nums]
            else:
                vals = [tbl.encode_number(None) if v is None else tbl.encode_number(round((v - mean) / sd, 3), None, 3) for v in nums]
            features.append({"name": name, "source_field": t["column"], "noise_subtype": f"{_SUBTYPE[kind]}_feature_pack",
                             "exclusion_reason": f"the question asks for {t['column']} itself, not its {kind} variant",
                             "values": vals})
        last = len(tbl.headers)
        for i, f in enumerate(features):
            tbl.insert_col(last + i, f["name"], f.pop("values"), like=c)
        tbl.save()
        return {"edit_summary": f"appended {len(features)} decoy features derived from {t['column']}",
                "parameters": {**t, "added": [f["name"] for f in features]},
                "semantic_contract": {"feature_pack": {"file": t["file"], "sheet": t["sheet"], "target_fields": [t["column"]],
                                                       "added_features": features}}}

    def recover(self, con, rec):
        p = rec["parameters"]
        drop_columns(con, p["table"], p["added"])

    def misuse(self, con, rec):
        p = rec["parameters"]
        decoy = next(n for n in p["added"] if n.endswith(("_forecast", "_previous")))
        drop_columns(con, p["table"], [p["column"]])
        rename(con, p["table"], decoy, p["column"])
        return True


_SUBTYPE = {"forecast": "forecast", "previous": "historical", "rounded": "rounded", "rank": "ranking", "zscore": "normalized"}
MARKERS = (("summary_row", "summary: column total"), ("control_row", "control sample"), ("check_row", "data check"))


@register("non_observation_row_injection", "NRI", "robustness", "L3", 12, TABLE_EXT,
          "Append naturally marked summary, sample, check or control records that are not observations.")
class NonObservationRows:
    def select(self, task):
        if task.category == "retrieval" and task.meta.get("agg_col") is None:
            raise NotApplicable("the question does not analyse records")
        table, file, sheet = _target_table(task)
        return {"table": table, "file": file, "sheet": sheet}

    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        if not _flat_header(tbl):
            raise NotApplicable("multi-level header")
        marker = "record_type"
        if marker in tbl.headers:
            raise NotApplicable("marker column name taken")
        n = tbl.n_rows
        limit = max(1, min(5, n // 10)) if n < 50 else max(1, n // 10)
        k = min(limit, 1 + ctx.variant % 3, 3)
        subtype, label = MARKERS[ctx.variant % len(MARKERS)]
        scope_col, scope_value = _question_scope(ctx.task)
        if scope_col and scope_col not in tbl.headers:
            raise NotApplicable("the question's filter or grouping lives in another file")
        if ctx.task.meta.get("join_key"):
            raise NotApplicable("marked rows in one file of a join cannot reach the joined records")
        rows = []
        for j in range(k):
            row = []
            for c, h in enumerate(tbl.headers):
                nums = tbl.numeric(c)
                present = [v for v in nums if v is not None]
                numeric_col = len(present) >= 0.8 * max(1, sum(not tbl.is_null(r, c) for r in range(n)))
                if h == scope_col:
                    row.append(tbl.encode_text(scope_value) if tbl.kind == "csv" else _typed_like(tbl, c, scope_value))
                elif numeric_col and present:
                    if ROLES.get(h) == "key":
                        val = max(present) + 1 + j
                    elif subtype == "summary_row":
                        val = sum(present)
                    else:
                        val = max(present) * (1.5 + 0.5 * j)
                    is_int = all(float(v).is_integer() for v in present)
                    row.append(tbl.encode_number(round(val) if is_int else round(val, 2), c, 0 if is_int else 2))
                else:
                    row.append(tbl.encode_text("ALL" if subtype == "summary_row" else "CONTROL"))
            rows.append(row)
        tbl.append_rows(rows)
        values = [tbl.encode_text("observation")] * n + [tbl.encode_text(label)] * k
        tbl.insert_col(len(tbl.headers), marker, values, like=len(tbl.headers) - 1)
        tbl.save()
        return {"edit_summary": f"appended {k} {subtype.replace('_', ' ')}s marked in column {marker}",
                "parameters": {**t, "marker_column": marker, "observation_value": "observation", "marker_value": label,
                               "appended": k, "original_rows": n},
                "semantic_contract": {"marker_column": {"name": marker, "observation_value": "observation"},
                                      "non_observation_rows": [{"file": t["file"], "sheet": t["sheet"], "row": n + j + 1,
                                                                "marker_field": marker, "marker_value": label,
                                                                "noise_subtype": subtype,
                                                                "exclusion_reason": f"{marker} says '{label}', not an observation"}
                                                               for j in range(k)]}}

    def recover(self, con, rec):
        p = rec["parameters"]
        con.execute(f"delete from {qi(p['table'])} where {qi(p['marker_column'])} <> 'observation'")
        drop_columns(con, p["table"], [p["marker_column"]])

    def misuse(self, con, rec):
        return True  # the full table, appended rows included


def _question_scope(task):
    """(column, value) the question restricts to: its filter, or the winning group of the answer."""
    m = task.meta
    if m.get("filter_col") and m.get("filter_value") is not None:
        return m["filter_col"], str(m["filter_value"])
    if m.get("group_col") and task.reference_pairs and task.answer_names and task.answer_names[0] != f"mean_{m.get('agg_col')}":
        return m["group_col"], task.reference_pairs[0][1]
    return None, None


def _typed_like(tbl, c, text):
    for r in range(tbl.n_rows):
        v = tbl.get(r, c)
        if v is not None and str(v) == text:
            return v
    return text


def _id_like(header: str) -> bool:
    """A declared key, or a header that names an identifier (id, *_id, code, key, name)."""
    if ROLES.get(header) == "key":
        return True
    h = header.strip().lower().replace(" ", "_")
    return h in ("id", "key", "code", "name") or h.endswith(("_id", "id", "_code", "_key")) and ROLES.get(header) is None
