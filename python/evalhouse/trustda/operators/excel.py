"""Excel-only operators: hierarchical header relayout, cross-sheet relayout (robustness) and
structural context removal (reliability). All edit a copy of the workbook in place with openpyxl."""
from __future__ import annotations

import copy
import itertools
import re

from openpyxl import load_workbook

from ..package import table_name_for
from ..workbook import HEADER_JOIN, detect_layout
from .base import ROLES, Ctx, NotApplicable, locate, primary_field, register
from .dbops import columns, drop_table, qi, rename

XLSX = (".xlsx",)
YEAR_HEADER = re.compile(r"^(\d{4})_(.+)$")
ROLE_PARENTS = {"key": "Identifier", "text": "Attributes", "cat": "Attributes", "num": "Measurements"}


def _xlsx_target(task):
    table, _ = primary_field(task)
    file, sheet = locate(task, table)
    if not file.lower().endswith(".xlsx"):
        raise NotApplicable("not an Excel workbook")
    return {"table": table, "file": file, "sheet": sheet}


@register("excel_hierarchical_header_relayout", "HHR", "robustness", "L2", 9, XLSX,
          "Relayout a flat Excel header as a semantically complete multi-level or merged header.")
class HierarchicalHeaderRelayout:
    def select(self, task):
        return _xlsx_target(task)

    def construct(self, ctx: Ctx, t):
        wb = load_workbook(ctx.out / t["file"])
        ws = wb[t["sheet"]]
        lay = detect_layout(ws)
        if lay is None or len(lay.header_rows) != 1:
            raise NotApplicable("the header is not flat")
        names = lay.raw_columns
        parents, children = _hierarchy(names)
        if parents is None:
            raise NotApplicable("no natural parent-child grouping of the headers")
        h = lay.header_rows[0]
        ws.insert_rows(h, amount=1)
        mapping = {}
        for i, (p, ch) in enumerate(zip(parents, children)):
            col = lay.first_col + i
            child_cell = ws.cell(row=h + 1, column=col)
            parent_cell = ws.cell(row=h, column=col)
            parent_cell._style = copy.copy(child_cell._style)
            if ch is None:  # an identifier spanning both header rows
                parent_cell.value, child_cell.value = names[i], None
                ws.merge_cells(start_row=h, start_column=col, end_row=h + 1, end_column=col)
                mapping[names[i]] = names[i]
            else:
                parent_cell.value, child_cell.value = p, ch
                mapping[f"{p}{HEADER_JOIN}{ch}"] = names[i]
        for p, run in itertools.groupby(range(len(names)), key=lambda i: (parents[i], children[i] is None)):
            run = list(run)
            if not p[1] and len(run) > 1:
                for i in run[1:]:
                    ws.cell(row=h, column=lay.first_col + i).value = None
                ws.merge_cells(start_row=h, start_column=lay.first_col + run[0], end_row=h, end_column=lay.first_col + run[-1])
        ws.freeze_panes = ws.cell(row=h + 2, column=1)
        wb.save(ctx.out / t["file"])
        return {"edit_summary": f"turned the flat header of {t['file']}[{t['sheet']}] into two levels",
                "parameters": {**t, "sheet_specs": [{"file": t["file"], "sheet": t["sheet"], "original_header_rows": [h],
                                                     "final_header_rows": [h, h + 1], "original_data_start_row": h + 1,
                                                     "final_data_start_row": h + 2}],
                               "mapping": mapping}}

    def recover(self, con, rec):
        p = rec["parameters"]
        for new, old in p["mapping"].items():
            if new != old:
                rename(con, p["table"], new, old)

    def misuse(self, con, rec):
        return False


def _hierarchy(names):
    matches = [YEAR_HEADER.match(n) for n in names]
    if sum(m is not None for m in matches) >= 2:
        lead = 0
        while lead < len(names) and matches[lead] is None:
            lead += 1
        if any(m is None for m in matches[lead:]):
            return None, None
        return ([n for n in names[:lead]] + [m.group(1) for m in matches[lead:]],
                [None] * lead + [m.group(2) for m in matches[lead:]])
    roles = [ROLE_PARENTS.get(ROLES.get(n, ""), None) for n in names]
    if any(r is None for r in roles) or len(set(roles)) < 2:
        return None, None
    if max(len(list(g)) for _, g in itertools.groupby(roles)) < 2:
        return None, None
    return roles, list(names)


FORMULA_RANGE = re.compile(r"(\w+)\((?:'?)([^'!()]+)(?:'?)!([A-Z]+)(\d+):([A-Z]+)(\d+)\)")


@register("excel_cross_sheet_relayout", "CSR", "robustness", "L2", 10, XLSX,
          "Split or merge Excel sheets along a natural dimension while preserving records and field location.")
class CrossSheetRelayout:
    def select(self, task):
        t = _xlsx_target(task)
        sheets = task.meta.get("sheets")
        if sheets:
            return {**t, "mode": "merge", "sheets": sheets, "dimension": task.meta.get("sheet_dimension", "sheet")}
        group = task.meta.get("group_col") or next((c for tb, c in task.fields_used if ROLES.get(c) == "cat"), None)
        return {**t, "mode": "split", "split_col": group}

    def construct(self, ctx, t):
        if t["mode"] == "merge":
            return self._merge(ctx, t)
        return self._split(ctx, t)

    def _split(self, ctx, t):
        wb = load_workbook(ctx.out / t["file"])
        ws = wb[t["sheet"]]
        lay = detect_layout(ws)
        if lay is None or len(lay.header_rows) != 1:
            raise NotApplicable("only a flat single-table sheet can be split")
        candidates = [t["split_col"]] if t.get("split_col") else []
        candidates += [c for c in lay.columns if ROLES.get(c) == "cat" and c not in candidates]
        ctx_filter = ctx.task.meta.get("filter_col")
        for col in candidates:
            if col is None or col not in lay.columns or col == ctx_filter:
                continue
            ci = lay.first_col + lay.columns.index(col)
            values = [ws.cell(row=r, column=ci).value for r in lay.data_rows]
            levels = list(dict.fromkeys(values))
            if None in levels or not 2 <= len(levels) <= 8:
                continue
            break
        else:
            raise NotApplicable("no categorical field with 2-8 complete levels to split on (or the task filters on it)")
        names = {}
        for lv in levels:
            copy_ws = wb.copy_worksheet(ws)
            copy_ws.title = names.setdefault(lv, _sheet_name(str(lv), names.values()))
            for r in reversed(list(lay.data_rows)):
                if copy_ws.cell(row=r, column=ci).value != lv:
                    copy_ws.delete_rows(r, 1)
            copy_ws.freeze_panes = ws.freeze_panes
        last_rows = {names[lv]: lay.first_data_row + values.count(lv) - 1 for lv in levels}
        rewritten = _rewrite_formulas(wb, t["sheet"], list(names.values()), last_rows, lay.first_data_row)
        idx = wb.sheetnames.index(t["sheet"])
        wb.remove(ws)
        for k, name in enumerate(names.values()):
            wb.move_sheet(name, offset=idx + k - wb.sheetnames.index(name))
        wb.save(ctx.out / t["file"])
        return {"edit_summary": f"split sheet {t['sheet']} into {len(levels)} sheets by {col}",
                "parameters": {**t, "split_col": col, "new_sheets": list(names.values()),
                               "new_tables": [table_name_for(t["file"], s) for s in names.values()],
                               "aux_tables_changed": [table_name_for(t["file"], s) for s in rewritten]}}

    def _merge(self, ctx, t):
        wb = load_workbook(ctx.out / t["file"])
        sheets = [s for s in t["sheets"] if s in wb.sheetnames]
        if len(sheets) < 2:
            raise NotApplicable("fewer than two sheets to merge")
        first = wb[sheets[0]]
        lay = detect_layout(first)
        headers = None
        for s in sheets:
            lay_s = detect_layout(wb[s])
            if headers is None:
                headers = lay_s.columns
            elif lay_s.columns != headers:
                raise NotApplicable("sheets do not share one header")
        merged = wb.copy_worksheet(first)
        merged.title = "All records"
        dim = t["dimension"]
        if dim in headers:
            raise NotApplicable("dimension name already a column")
        from ..edit import SheetTable

        tbl = SheetTable.__new__(SheetTable)
        tbl.wb, tbl.ws, tbl.sheet, tbl.path, tbl.file = wb, merged, merged.title, ctx.out / t["file"], t["file"]
        tbl.layout = detect_layout(merged)
        value = (lambda s: int(s)) if all(s.isdigit() for s in sheets) else (lambda s: s)
        tbl.insert_col(0, dim, [value(sheets[0])] * tbl.n_rows, like=0)
        merged.cell(row=1, column=1).value = f"{t['file'].rsplit('.', 1)[0].replace('_', ' ')}: all records"
        for s in sheets[1:]:
            src = wb[s]
            ls = detect_layout(src)
            rows = [[value(s)] + [src.cell(row=r, column=c).value for c in range(ls.first_col, ls.last_col + 1)] for r in ls.data_rows]
            tbl.append_rows(rows)
        for s in sheets:
            wb.remove(wb[s])
        wb.move_sheet(merged.title, offset=-wb.sheetnames.index(merged.title))
        wb.save(ctx.out / t["file"])
        return {"edit_summary": f"merged sheets {', '.join(sheets)} into one sheet with a {dim} column",
                "parameters": {**t, "merged_sheet": merged.title, "merged_table": table_name_for(t["file"], merged.title),
                               "original_tables": {s: table_name_for(t["file"], s) for s in sheets}}}

    def recover(self, con, rec):
        p = rec["parameters"]
        if p["mode"] == "split":
            union = " union all ".join(f"select * from {qi(x)}" for x in p["new_tables"])
            con.execute(f"create or replace table {qi(p['table'])} as {union}")
            for x in p["new_tables"]:
                drop_table(con, x)
        else:
            m = qi(p["merged_table"])
            dim = qi(p["dimension"])
            for s, table in p["original_tables"].items():
                con.execute(f"create or replace table {qi(table)} as select * exclude ({dim}) from {m} "
                            f"where cast({dim} as varchar) = ?", [s])
            drop_table(con, p["merged_table"])

    def misuse(self, con, rec):
        return False


def _sheet_name(value: str, taken) -> str:
    base = re.sub(r"[\[\]\*\?/\\:]", "-", value)[:31] or "blank"
    name, k = base, 2
    while name in taken:
        name, k = f"{base[:28]}-{k}", k + 1
    return name


def _rewrite_formulas(wb, old_sheet, new_sheets, last_rows, first_row):
    """Point whole-column formulas (SUM/AVERAGE/COUNTA of one range) at every new sheet;
    returns the sheets whose formulas changed."""
    changed = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("=") and f"{old_sheet}!" in cell.value:
                    def repl(m):
                        func, sheet, c1, _, c2, _ = m.groups()
                        if sheet.strip("'") != old_sheet:
                            return m.group(0)
                        parts = [f"'{s}'!{c1}{first_row}:{c2}{last_rows[s]}" for s in new_sheets]
                        return f"{func}({', '.join(parts)})"
                    cell.value = FORMULA_RANGE.sub(repl, cell.value)
                    changed.add(ws.title)
    return sorted(changed)


@register("structural_context_missing", "SCM", "reliability", "hard", 7, XLSX,
          "Removes structural markers required to interpret or locate necessary evidence (Excel only).")
class StructuralContextMissing:
    def select(self, task):
        t = _xlsx_target(task)
        if task.meta.get("sheets"):
            return {**t, "mode": "sheet_names", "sheets": task.meta["sheets"]}
        if task.meta.get("wide", {}).get("join") == HEADER_JOIN:
            return {**t, "mode": "parent_header"}
        raise NotApplicable("no multi-level header or multi-sheet structure the question depends on")

    def construct(self, ctx, t):
        wb = load_workbook(ctx.out / t["file"])
        if t["mode"] == "sheet_names":
            mapping = {}
            for i, s in enumerate(t["sheets"], start=1):
                ws = wb[s]
                mapping[f"Sheet{i}"] = s
                ws.title = f"Sheet{i}"
                lay = detect_layout(ws)
                for m in list(ws.merged_cells.ranges):
                    if m.max_row < lay.header_rows[0]:
                        ws.unmerge_cells(str(m))
                for r in range(1, lay.header_rows[0]):
                    for c in range(1, ws.max_column + 1):
                        ws.cell(row=r, column=c).value = None
            wb.save(ctx.out / t["file"])
            what = "the sheet names and titles that say which " + ctx.task.meta.get("sheet_dimension", "group") + " each sheet holds"
            dim = ctx.task.meta.get("sheet_dimension", "group")
            return {"edit_summary": "renamed the sheets to Sheet1..n and cleared their titles",
                    "parameters": {**t, "renamed": mapping},
                    "removed_structure": what, "gold_reason_code": "missing_structural_context",
                    "gold_reason": f"The sheets of {t['file']} are named Sheet1..Sheet{len(mapping)} and their titles are gone, "
                                   f"so nothing says which {dim} each sheet holds; the question depends on that {dim}.",
                    "attack_evidence": {"target": {"file": t["file"]}, "removed": what, "sheets": list(mapping)}}
        ws = wb[t["sheet"]]
        lay = detect_layout(ws)
        if len(lay.header_rows) < 2:
            raise NotApplicable("the header has a single level")
        top = lay.header_rows[0]
        for m in list(ws.merged_cells.ranges):
            if m.min_row <= lay.header_rows[-1] and m.max_row >= top:
                ws.unmerge_cells(str(m))
        for c in range(lay.first_col, lay.last_col + 1):
            child = ws.cell(row=top + 1, column=c)
            if child.value is None:
                child.value = ws.cell(row=top, column=c).value
        ws.delete_rows(top, 1)
        wb.save(ctx.out / t["file"])
        years, metrics = ctx.task.meta["wide"]["years"], ctx.task.meta["wide"]["metrics"]
        return {"edit_summary": "removed the year row of the two-level header; measure names now repeat",
                "parameters": {**t, "years": years, "metrics": metrics},
                "removed_structure": "the parent header row naming the year of each measure column",
                "gold_reason_code": "missing_structural_context",
                "gold_reason": f"In {t['file']}, sheet {t['sheet']}, the header row that said which year each column belongs to "
                               f"is gone: {', '.join(metrics)} each appear {len(years)} times with no year, so the columns for the "
                               f"year the question asks about cannot be identified.",
                "attack_evidence": {"target": {"file": t["file"], "sheet": t["sheet"]}, "fields": metrics, "years": years}}

    def readings(self, rec, task):
        """Plausible assignments of the stripped structure (cyclic shifts); each is a function
        that rebinds the perturbed tables as if that assignment were the true one."""
        p = rec["parameters"]
        if p["mode"] == "sheet_names":
            generic = list(p["renamed"])
            names = [p["renamed"][g] for g in generic]

            def by_sheets(shift):
                def apply(con):
                    for i, g in enumerate(generic):
                        con.execute(f"alter table {qi(table_name_for(p['file'], g))} rename to "
                                    f"{qi('_tmp_' + str(i))}")
                    for i, g in enumerate(generic):
                        target = table_name_for(p["file"], names[(i + shift) % len(names)])
                        con.execute(f"alter table {qi('_tmp_' + str(i))} rename to {qi(target)}")
                return apply
            return [(f"sheet assignment shift {k}", by_sheets(k)) for k in range(len(names))]
        years, metrics, table = p["years"], p["metrics"], p["table"]

        def by_columns(shift):
            def apply(con):
                cols = columns(con, table)
                for m in metrics:
                    occ = [c for c in cols if c == m or re.fullmatch(re.escape(m) + r"_\d+", c)]
                    for i, c in enumerate(occ[:len(years)]):
                        rename(con, table, c, f"{years[(i + shift) % len(years)]}{HEADER_JOIN}{m}")
            return apply
        return [(f"year assignment shift {k}", by_columns(k)) for k in range(len(years))]
