"""The reliability operators on CSV and Excel tables (the task becomes unanswerable)."""
from __future__ import annotations

import math



from ..answer_path import load_package
from ..edit import insert_row, open_table

from .base import (
    DESCRIPTIONS, ROLES, SYNONYMS, Ctx, NotApplicable, TargetsPrimaryField, locate, primary_field, register,
                   used_columns, used_tables)
from .dbops import columns, drop_columns, qi, rename

TABLE_EXT = (".csv", ".tsv", ".xlsx")


def _desc(col: str) -> str:
    d = DESCRIPTIONS.get(col)
    return f'"{col}" ({d})' if d else f'"{col}"'


def _where(t):
    return f"{t['file']}" + (f", sheet {t['sheet']}" if t.get("sheet") else "")


def recoverable_from(values: list, others: dict[str, list]) -> str | None:
    """Name of another column that reproduces ``values`` (equal or an exact linear relation, |r| > 0.99999), else None."""
    for name, col in others.items():
        pairs = [(a, b) for a, b in zip(values, col) if a is not None and b is not None]
        if len(pairs) < 3:
            continue
        if all(abs(a - b) < 1e-9 for a, b in pairs):
            return name
        xs, ys = zip(*pairs)
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
        sy = math.sqrt(sum((y - my) ** 2 for y in ys))
        if sx and sy and abs(sum((x - mx) * (y - my) for x, y in pairs) / (sx * sy)) > 0.99999:
            return name
    return None


def _numeric_columns(tbl, skip: set[int]) -> dict[str, list]:
    return {h: tbl.numeric(i) for i, h in enumerate(tbl.headers) if i not in skip}


@register("field_missing", "FDM", "reliability", "easy", 1, TABLE_EXT,
          "Removes a necessary field from the evidence-supported answer path.")
class FieldMissing(TargetsPrimaryField):
    def construct(self, ctx: Ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        if tbl.kind == "xlsx" and len(tbl.layout.header_rows) != 1:
            raise NotApplicable("multi-level header: use structural_context_missing")
        c = tbl.col(t["column"])
        values = tbl.numeric(c)
        twin = recoverable_from(values, _numeric_columns(tbl, {c}))
        if twin:
            raise NotApplicable(f"column {twin} would still recover {t['column']}")
        if SYNONYMS.get(t["column"]) in tbl.headers:
            raise NotApplicable("an equivalent field remains")
        tbl.delete_col(c)
        tbl.save()
        return {"edit_summary": f"removed column {t['column']} from {_where(t)}",
                "parameters": t, "gold_reason_code": "missing_field",
                "gold_reason": f"The question needs the field {_desc(t['column'])}, but {_where(t)} has no such column "
                               f"and no other column records it.",
                "attack_evidence": {"target": t, "fields": [t["column"]], "affected_count": tbl.n_rows}}


@register("data_missing", "DM", "reliability", "easy", 2, TABLE_EXT,
          "Replaces values or records required to answer the question with NULLs.")
class DataMissing(TargetsPrimaryField):
    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        c = tbl.col(t["column"])
        nums = tbl.numeric(c)
        present = [i for i in range(tbl.n_rows) if not tbl.is_null(i, c)]
        if len(present) < 5:
            raise NotApplicable("too few values in the needed field")
        k = max(3, math.ceil(0.3 * len(present)))
        chosen = set(ctx.rng.sample(present, k))
        top = [i for i in present if nums[i] is not None]
        if top:  # the extreme values carry most answers (max, argmax, ranking, thresholds)
            chosen.add(max(top, key=lambda i: nums[i]))
        original = {i: tbl.get(i, c) for i in sorted(chosen)}
        for i in chosen:
            tbl.set_null(i, c)
        tbl.save()
        return {"edit_summary": f"set {len(chosen)} of {len(present)} values of {t['column']} to NULL",
                "parameters": {**t, "rows": sorted(chosen)}, "gold_reason_code": "nulled_values",
                "gold_reason": f"{len(chosen)} of the {len(present)} values of {_desc(t['column'])} that the question needs "
                               f"are empty in {_where(t)}, so the result cannot be computed from complete data.",
                "attack_evidence": {"target": t, "rows": sorted(chosen), "original_values": [str(v) for v in original.values()],
                                    "affected_count": len(chosen)}}


@register("evidence_conflict", "EC", "reliability", "easy", 3, TABLE_EXT,
          "Introduces irresolvable conflicting values for the same fact.")
class EvidenceConflict(TargetsPrimaryField):
    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        if tbl.kind == "xlsx" and len(tbl.layout.header_rows) != 1:
            raise NotApplicable("multi-level header")
        keys = [i for i, h in enumerate(tbl.headers) if (ROLES.get(h) == "key" or i == 0)
                and len({str(tbl.get(r, i)) for r in range(tbl.n_rows)}) == tbl.n_rows
                and not any(tbl.is_null(r, i) for r in range(tbl.n_rows))]
        if not keys:
            raise NotApplicable("no unique record key: duplicates would be ordinary repeated records")
        kc = keys[0]
        c = tbl.col(t["column"])
        if kc == c:
            raise NotApplicable("the needed field is the key")
        nums = tbl.numeric(c)
        present = [i for i, v in enumerate(nums) if v is not None]
        if len(present) < 3:
            raise NotApplicable("the needed field is not numeric")
        from .robustness import _question_scope

        scope_col, scope_value = _question_scope(ctx.task)
        if scope_col in tbl.headers:
            sc = tbl.col(scope_col)
            scoped = [i for i in present if str(tbl.get(i, sc)) == scope_value]
            present = scoped or present
        r = max(present, key=lambda i: nums[i]) if ctx.variant % 2 == 0 else ctx.rng.choice(present)
        v = nums[r]
        factor = 0.6 if ctx.variant % 2 == 0 else 1.4
        new = round(v * factor, max(tbl.decimals(c), 0)) if v else 1.0
        if new == v:
            new = v + 1
        row = [tbl.get(r, j) for j in range(len(tbl.headers))]
        row[c] = tbl.encode_number(new, c)
        insert_row(tbl, r + 1, row)
        tbl.save()
        key = str(tbl.get(r, kc))
        return {"edit_summary": f"added a second record for {tbl.headers[kc]}={key} with {t['column']}={new} (was {v})",
                "parameters": {**t, "key_column": tbl.headers[kc], "key_value": key, "values": [v, new]},
                "gold_reason_code": "conflicting_values",
                "gold_reason": f"The record {tbl.headers[kc]}={key} appears twice in {_where(t)} with different "
                               f"{_desc(t['column'])} values ({_plain(v)} and {_plain(new)}), and nothing in the files says which is right.",
                "attack_evidence": {"target": t, "fact_key": {tbl.headers[kc]: key}, "original_values": [_plain(v)],
                                    "perturbed_values": [_plain(new)]}}

    def readings(self, rec, task):
        p = rec["parameters"]
        t, k, col = qi(p["table"]), qi(p["key_column"]), qi(p["column"])

        def keep(value):
            def apply(con):
                con.execute(f"delete from {t} where cast({k} as varchar) = ? and abs({col} - ?) > 1e-9",
                            [p["key_value"], float(value)])
            return apply
        return [(f"keep {p['column']}={_plain(v)}", keep(v)) for v in p["values"]]


def _plain(v):
    return int(v) if isinstance(v, float) and v.is_integer() else v


@register("file_missing", "FLM", "reliability", "easy", 4, TABLE_EXT,
          "Removes a necessary file from a task involving multiple files.")
class FileMissing:
    def select(self, task):
        tables = used_tables(task)
        files = {locate(task, tb)[0] for tb in tables}
        if len(files) < 2:
            raise NotApplicable("the task uses a single file")
        return {"tables": tables}

    def construct(self, ctx, t):
        tables = t["tables"]
        table = tables[ctx.variant % len(tables)]
        file, _ = locate(ctx.task, table)
        needed = [c for c in used_columns(ctx.task, table)]
        key = ctx.task.meta.get("join_key")
        own = [c for c in needed if c != key]
        (ctx.out / file).unlink()
        return {"edit_summary": f"removed file {file} from the package", "required_edit": "remove_files",
                "parameters": {"file": file, "table": table, "needed_columns": own},
                "gold_reason_code": "missing_file",
                "gold_reason": f"The question needs {', '.join(_desc(c) for c in own) or 'records'} from the file {file}, "
                               f"which is not in the package; the remaining files do not contain it.",
                "attack_evidence": {"target": {"file": file}, "fields": own}}


@register("header_conflict", "HC", "reliability", "easy", 5, TABLE_EXT,
          "Assigns the same header to semantically different key fields.")
class HeaderConflict:
    def select(self, task):
        table, col = primary_field(task)
        file, sheet = locate(task, table)
        return {"table": table, "file": file, "sheet": sheet, "column": col, "used": used_columns(task, table)}

    def construct(self, ctx, t):
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        if tbl.kind == "xlsx" and len(tbl.layout.header_rows) != 1:
            raise NotApplicable("multi-level header")
        c = tbl.col(t["column"])
        target = tbl.numeric(c)
        if sum(v is not None for v in target) < 3:
            raise NotApplicable("the needed field is not numeric")
        others = [i for i, h in enumerate(tbl.headers) if i != c and h not in t["used"] and ROLES.get(h) != "key"
                  and sum(v is not None for v in tbl.numeric(i)) >= 0.8 * sum(v is not None for v in target)]
        differing = [i for i in others if sum(1 for a, b in zip(target, tbl.numeric(i)) if a is not None and b is not None and a != b)
                     >= 0.3 * tbl.n_rows]
        if not differing:
            raise NotApplicable("no other plausible numeric field to share the header")
        o = differing[ctx.variant % len(differing)]
        old = tbl.headers[o]
        tbl.rename(o, t["column"])
        tbl.save()
        first_is_target = c < o
        return {"edit_summary": f"renamed column {old} to {t['column']}: two columns now share that header",
                "parameters": {**t, "renamed_from": old, "target_first": first_is_target},
                "candidate_fields": [t["column"], old], "gold_reason_code": "duplicate_header",
                "gold_reason": f"Two different columns in {_where(t)} are both headed \"{t['column']}\"; they hold different "
                               f"values and nothing identifies which one the question means.",
                "attack_evidence": {"target": t, "fields": [t["column"], old]}}

    def readings(self, rec, task):
        p = rec["parameters"]
        table, col = p["table"], p["column"]

        def pick(which):
            def apply(con):
                cols = columns(con, table)
                dup = next((c for c in cols if c != col and c.startswith(col + "_") and c[len(col) + 1:].isdigit()), None)
                if dup is None:
                    return
                if which == 0:
                    drop_columns(con, table, [dup])
                else:
                    drop_columns(con, table, [col])
                    rename(con, table, dup, col)
            return apply
        return [("first column with the header", pick(0)), ("second column with the header", pick(1))]


@register("deep_analysis_missing", "DAM", "reliability", "hard", 6, TABLE_EXT,
          "Removes evidence required by a later analytical step.")
class DeepAnalysisMissing:
    def select(self, task):
        if task.steps < 3 or not task.meta.get("late_col"):
            raise NotApplicable("fewer than three dependent analysis steps with a later-step field")
        table, _ = primary_field(task)
        file, sheet = locate(task, table)
        return {"table": table, "file": file, "sheet": sheet, "late_col": task.meta["late_col"]}

    def construct(self, ctx, t):
        task = ctx.task
        m = task.meta
        tb = qi(t["table"])
        con = load_package(ctx.src)
        try:
            if m.get("group_col"):
                g, a = qi(m["group_col"]), qi(m["rank_col"])
                early = f"select {g} from {tb} where {g} is not null group by {g} order by avg({a}) desc limit 1"
                top = con.execute(early).fetchone()[0]
                rows_sql = f"select cast({g} as varchar) = cast(? as varchar) from {tb}"
                flags = [r[0] for r in con.execute(rows_sql, [top]).fetchall()]
                subset = f"rows whose {m['group_col']} is {top} (the group chosen by the earlier steps)"
            elif m.get("split_col"):
                s = qi(m["split_col"])
                early = f"select median({s}) from {tb}"
                med = con.execute(early).fetchone()[0]
                flags = [r[0] for r in con.execute(f"select coalesce({s} > ?, false) from {tb}", [med]).fetchall()]
                subset = f"rows whose {m['split_col']} is above its median"
            else:
                raise NotApplicable("no later step to block")
        finally:
            con.close()
        tbl = open_table(ctx.out, t["file"], t["sheet"])
        c = tbl.col(t["late_col"])
        rows = [i for i, f in enumerate(flags) if f and not tbl.is_null(i, c)]
        if not rows or len(rows) == sum(not tbl.is_null(i, c) for i in range(tbl.n_rows)):
            raise NotApplicable("the later-step subset is empty or the whole column (use data_missing)")
        for i in rows:
            tbl.set_null(i, c)
        tbl.save()
        return {"edit_summary": f"emptied {t['late_col']} for the {len(rows)} {subset}",
                "parameters": {**t, "rows": rows, "early_sql": early}, "gold_reason_code": "missing_later_step_evidence",
                "reasoning_chain": ["locate the fields", "earlier step: select the subset", f"final step: aggregate {t['late_col']}"],
                "gold_reason": f"The earlier steps still work, but the final step needs {_desc(t['late_col'])} for the {subset}, "
                               f"and all of those values are empty in {_where(t)}.",
                "attack_evidence": {"target": t, "rows": rows, "affected_step": "final aggregation", "affected_count": len(rows)},
                "hardness_check": {"multi_step_dependency": task.steps >= 3, "earlier_steps_executable": True,
                                   "middle_or_late_blockage": True, "no_alternative_answer_path": True}}
