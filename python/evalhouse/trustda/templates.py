"""Question templates: retrieval, aggregation, filtering, grouping, correlation and multi-step
questions, each with gold SQL (DuckDB) over tables named after the package files.

A template returns a ``TaskDraft``; ``builtin.py`` runs its SQL on the package to get the
reference answer and drops drafts whose answer is missing or not unique (ties).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TaskDraft:
    template: str
    category: str
    level: str
    question: str
    answer_format: str
    gold_sql: str
    answer_names: list[str]
    fields: list[tuple[str, str]]  # (table, column) used on the answer path
    steps: int = 1
    meta: dict[str, Any] = field(default_factory=dict)
    uniqueness_sql: str | None = None  # returns 1 when the answer is unique (no ties)


def q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def fmt_float(name: str, decimals: int = 2) -> str:
    return f"@{name}[value], where value is a number rounded to {decimals} decimal places."


def slug(name: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "_" for ch in name)
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_")


@dataclass
class TableView:
    """What templates know about one table: its SQL name, columns by role, descriptions."""

    table: str
    entity: str
    nums: list[str]
    cats: list[str]
    key: str | None
    desc: dict[str, str]
    mode_value: dict[str, str] = field(default_factory=dict)  # most frequent level per cat column
    medians: dict[str, float] = field(default_factory=dict)

    def d(self, col: str) -> str:
        return f'"{col}" ({self.desc.get(col, col)})'


def single_table_templates(v: TableView) -> list[TaskDraft]:
    t, drafts = q(v.table), []
    n = v.nums
    if len(n) < 2:
        return drafts
    a, b = n[0], n[1]
    c3 = n[2] if len(n) > 2 else n[0]
    drafts.append(TaskDraft(
        "mean", "aggregation", "easy",
        f"What is the average of {v.d(a)} over all {v.entity}?",
        fmt_float(f"mean_{slug(a)}"), f"select round(avg({q(a)}), 2) as mean_{slug(a)} from {t}",
        [f"mean_{slug(a)}"], [(v.table, a)], 1, {"agg_col": a}))
    drafts.append(TaskDraft(
        "max_min", "aggregation", "easy",
        f"What are the maximum and the minimum of {v.d(b)} in the table?",
        f"@max_{slug(b)}[value] @min_{slug(b)}[value], numbers as they appear, rounded to 2 decimal places.",
        f"select round(max({q(b)}), 2) as max_{slug(b)}, round(min({q(b)}), 2) as min_{slug(b)} from {t}",
        [f"max_{slug(b)}", f"min_{slug(b)}"], [(v.table, b)], 1, {"agg_col": b}))
    thr = _nice(v.medians.get(a))
    if thr is not None:
        drafts.append(TaskDraft(
            "count_above", "filtering", "easy",
            f"How many {v.entity} have {v.d(a)} greater than {thr}?",
            f"@count_above[value], where value is an integer.",
            f"select count(*) as count_above from {t} where {q(a)} > {thr}",
            ["count_above"], [(v.table, a)], 1, {"filter_col": a, "threshold": thr}))
    drafts.append(TaskDraft(
        "correlation", "correlation", "medium",
        f"What is the Pearson correlation coefficient between {v.d(a)} and {v.d(b)}?",
        fmt_float("correlation", 3),
        f"select round(corr({q(a)}, {q(b)}), 3) as correlation from {t}",
        ["correlation"], [(v.table, a), (v.table, b)], 1, {"agg_col": a}))
    drafts.append(TaskDraft(
        "std", "aggregation", "medium",
        f"What is the sample standard deviation of {v.d(c3)}?",
        fmt_float(f"std_{slug(c3)}"), f"select round(stddev_samp({q(c3)}), 2) as std_{slug(c3)} from {t}",
        [f"std_{slug(c3)}"], [(v.table, c3)], 1, {"agg_col": c3}))
    if v.key:
        drafts.append(TaskDraft(
            "argmax", "retrieval", "easy",
            f"Which {v.desc.get(v.key, v.key)} (column \"{v.key}\") has the highest {v.d(b)}, and what is its {v.d(a)}?",
            f"@{slug(v.key)}[value] @{slug(a)}[value], the identifier as written and the number as written.",
            f"select {q(v.key)} as {slug(v.key)}, {q(a)} as {slug(a)} from {t} where {q(b)} = (select max({q(b)}) from {t})",
            [slug(v.key), slug(a)], [(v.table, v.key), (v.table, a), (v.table, b)], 2, {"agg_col": b},
            uniqueness_sql=f"select count(*) = 1 from {t} where {q(b)} = (select max({q(b)}) from {t})"))
    if v.medians.get(b) is not None:
        drafts.append(TaskDraft(
            "median_split_diff", "multi_step", "hard",
            f"Split the {v.entity} by whether {v.d(b)} is above its median. What is the average {v.d(a)} "
            f"of the group above the median minus that of the rest?",
            fmt_float("mean_difference"),
            f"with m as (select median({q(b)}) as med from {t}) select round(avg(case when {q(b)} > m.med then {q(a)} end) "
            f"- avg(case when {q(b)} <= m.med then {q(a)} end), 2) as mean_difference from {t}, m",
            ["mean_difference"], [(v.table, a), (v.table, b)], 3, {"agg_col": a, "split_col": b, "late_col": a}))
    for c in v.cats[:2]:
        drafts.extend(_categorical_templates(v, t, a, b, c3, c))
    return drafts


def _categorical_templates(v: TableView, t: str, a: str, b: str, c3: str, c: str) -> list[TaskDraft]:
    out = []
    mode = v.mode_value.get(c)
    if mode is not None:
        lit = _lit(mode)
        out.append(TaskDraft(
            f"filtered_mean:{c}", "filtering", "medium",
            f"What is the average {v.d(b)} among {v.entity} whose \"{c}\" is {mode}?",
            fmt_float(f"mean_{slug(b)}"),
            f"select round(avg({q(b)}), 2) as mean_{slug(b)} from {t} where cast({q(c)} as varchar) = {lit}",
            [f"mean_{slug(b)}"], [(v.table, b), (v.table, c)], 2,
            {"agg_col": b, "filter_col": c, "filter_value": mode}))
    out.append(TaskDraft(
        f"top_group:{c}", "grouping", "medium",
        f"Which \"{c}\" group has the highest average {v.d(a)}, and what is that average?",
        f"@{slug(c)}[value] @mean_{slug(a)}[value], the group label as written and the average rounded to 2 decimal places.",
        f"select cast({q(c)} as varchar) as {slug(c)}, round(avg({q(a)}), 2) as mean_{slug(a)} from {t} "
        f"where {q(c)} is not null group by {q(c)} order by avg({q(a)}) desc limit 1",
        [slug(c), f"mean_{slug(a)}"], [(v.table, a), (v.table, c)], 2, {"agg_col": a, "group_col": c},
        uniqueness_sql=f"with g as (select avg({q(a)}) as m from {t} where {q(c)} is not null group by {q(c)}) "
                       f"select count(*) filter (where m = (select max(m) from g)) = 1 from g"))
    late = c3 if c3 != a else b
    out.append(TaskDraft(
        f"group_then_mean:{c}", "multi_step", "hard",
        f"First find the \"{c}\" group with the highest average {v.d(a)}. Within that group, what is the "
        f"average {v.d(late)}?",
        fmt_float(f"mean_{slug(late)}"),
        f"with top as (select {q(c)} as g from {t} where {q(c)} is not null group by {q(c)} order by avg({q(a)}) desc limit 1) "
        f"select round(avg({q(late)}), 2) as mean_{slug(late)} from {t} where {q(c)} = (select g from top)",
        [f"mean_{slug(late)}"], [(v.table, a), (v.table, c), (v.table, late)], 3,
        {"agg_col": late, "group_col": c, "late_col": late, "rank_col": a},
        uniqueness_sql=f"with g as (select avg({q(a)}) as m from {t} where {q(c)} is not null group by {q(c)}) "
                       f"select count(*) filter (where m = (select max(m) from g)) = 1 from g"))
    return out


def join_templates(a_table: str, b_table: str, key: str, cat: str, num: str, num2: str, entity: str,
                   desc: dict[str, str], mode: str | None, threshold: float | None) -> list[TaskDraft]:
    ta, tb = q(a_table), q(b_table)
    j = f"{ta} a join {tb} b on a.{q(key)} = b.{q(key)}"
    dn, dc = f'"{num}" ({desc.get(num, num)})', f'"{cat}"'
    fields = [(a_table, key), (b_table, key), (a_table, cat), (b_table, num)]
    out = [TaskDraft(
        f"join_top_group:{cat}", "grouping", "medium",
        f"Across the files, which {dc} group of {entity} has the highest average {dn}, and what is that average?",
        f"@{slug(cat)}[value] @mean_{slug(num)}[value], the group label as written and the average rounded to 2 decimal places.",
        f"select cast(a.{q(cat)} as varchar) as {slug(cat)}, round(avg(b.{q(num)}), 2) as mean_{slug(num)} from {j} "
        f"where a.{q(cat)} is not null group by a.{q(cat)} order by avg(b.{q(num)}) desc limit 1",
        [slug(cat), f"mean_{slug(num)}"], fields, 3, {"agg_col": num, "group_col": cat, "join_key": key},
        uniqueness_sql=f"with g as (select avg(b.{q(num)}) as m from {j} where a.{q(cat)} is not null group by a.{q(cat)}) "
                       f"select count(*) filter (where m = (select max(m) from g)) = 1 from g")]
    if mode is not None:
        out.append(TaskDraft(
            f"join_filtered_mean:{cat}", "filtering", "medium",
            f"What is the average {dn} of {entity} whose {dc} is {mode}?",
            fmt_float(f"mean_{slug(num)}"),
            f"select round(avg(b.{q(num)}), 2) as mean_{slug(num)} from {j} where cast(a.{q(cat)} as varchar) = {_lit(mode)}",
            [f"mean_{slug(num)}"], fields, 2, {"agg_col": num, "filter_col": cat, "filter_value": mode, "join_key": key}))
    if threshold is not None and mode is not None:
        out.append(TaskDraft(
            f"join_count:{cat}", "multi_step", "medium",
            f"How many {entity} with {dc} equal to {mode} have \"{num2}\" ({desc.get(num2, num2)}) greater than {threshold}?",
            "@count[value], where value is an integer.",
            f"select count(*) as count from {j} where cast(a.{q(cat)} as varchar) = {_lit(mode)} and b.{q(num2)} > {threshold}",
            ["count"], [(a_table, key), (b_table, key), (a_table, cat), (b_table, num2)], 2,
            {"filter_col": num2, "threshold": threshold, "join_key": key}))
    return out


def _lit(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def _nice(x: float | None) -> float | int | None:
    if x is None:
        return None
    if abs(x) >= 100:
        return int(round(x))
    return round(float(x), 1)
