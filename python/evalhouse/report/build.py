"""Collect the report's sections from the marts and write the HTML file.

The warehouse is opened read-only once, every section is queried, and the file is released
before rendering. A section that cannot be built (a mart not built yet, a benchmark's bug)
becomes a one-line note instead of stopping the report.
"""
from __future__ import annotations

import os
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import pandas as pd

from .. import benchmarks
from ..config import code_version, paths
from ..warehouse import connect, table_exists
from .render import ReportMeta, render_html
from .sections import Chart, Section, Table

RUN_COLUMNS = ["run_id", "kind", "benchmark", "status", "started_at", "finished_at", "starts",
               "code_version", "counts", "error", "config"]


def _one_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else 'no message'}"


def _missing_mart_note(mart: str) -> str:
    return f"The `{mart}` mart is not built yet: run `evalhouse build`."


# ---------------------------------------------------------------- runs

def runs_section(con) -> Section:
    section = Section(id="runs", title="Runs",
                      intro="Every job run recorded in the run registry (mart `runs`), newest first.")
    if not table_exists(con, "runs"):
        section.intro = _missing_mart_note("runs")
        return section
    frame = con.execute(f"select {', '.join(RUN_COLUMNS)} from runs order by started_at desc, run_id").df()
    if frame.empty:
        section.intro = "No runs recorded yet."
        return section
    by_status = frame["status"].value_counts()
    section.intro += " " + ", ".join(f"{n} {status}" for status, n in by_status.items()) + "."
    section.blocks.append(Table("Runs", frame))
    return section


# ---------------------------------------------------------------- llm usage

def _usage_by_model_role(usage: pd.DataFrame) -> pd.DataFrame:
    totals = usage.assign(total_tokens=usage["input_tokens"].fillna(0) + usage["output_tokens"].fillna(0))
    grouped = totals.groupby(["model", "role"], as_index=False, dropna=False)[
        ["requests", "cache_hits", "failed_attempts", "total_tokens", "cost_usd"]].sum()
    return grouped.sort_values(["model", "role"]).reset_index(drop=True)


def llm_usage_section(con) -> Section:
    section = Section(id="llm-usage", title="LLM usage",
                      intro="Model calls per run × model × role (mart `llm_usage`). Requests count "
                            "attempts actually sent; cache hits made no request.")
    if not table_exists(con, "llm_usage"):
        section.intro = _missing_mart_note("llm_usage")
        return section
    usage = con.execute("select * from llm_usage order by run_id, model, role").df()
    if usage.empty:
        section.intro = ("No model calls yet: every run so far used built-in systems only "
                         "(pass --model provider/name to evaluate an LLM).")
        return section
    summary = _usage_by_model_role(usage)
    records = summary.to_dict("records")
    section.blocks += [
        Chart("Tokens (input + output) per model and role", "grouped_bar", records,
              x="model", y="total_tokens", series="role", x_label="model", y_label="tokens"),
        Chart("Requests sent and cache hits per model and role", "grouped_bar",
              _requests_long(summary), x="model_role", y="calls", series="kind",
              x_label="model · role", y_label="calls"),
        Table("Totals per model and role", summary),
        Table("Usage per run, model and role", usage),
    ]
    return section


def _requests_long(summary: pd.DataFrame) -> list[dict]:
    rows = []
    for rec in summary.to_dict("records"):
        label = f"{rec['model']} · {rec['role']}"
        rows.append({"model_role": label, "kind": "requests", "calls": rec["requests"]})
        rows.append({"model_role": label, "kind": "cache hits", "calls": rec["cache_hits"]})
    return rows


# ---------------------------------------------------------------- benchmarks

def _note_section(name: str, title: str, note: str) -> Section:
    return Section(id=name, title=title, intro=note)


def benchmark_sections(con) -> list[Section]:
    out: list[Section] = []
    for name in benchmarks.available():
        title = name
        try:
            bench = benchmarks.get(name)
            title = getattr(bench, "title", name)
            sections = list(bench.report_sections(con) or [])
            bad = [type(s).__name__ for s in sections if not isinstance(s, Section)]
            if bad:
                raise TypeError(f"report_sections returned {', '.join(bad)} instead of Section")
        except Exception as exc:  # a benchmark's marts or code not ready must not stop the report
            out.append(_note_section(name, title, f"{title}: its sections are not available yet ({_one_line(exc)})."))
            continue
        out += sections or [_note_section(name, title, f"{title}: no report sections yet.")]
    return out


# ---------------------------------------------------------------- assembly

def _guarded(builder: Callable, con, section_id: str, title: str) -> list[Section]:
    try:
        result = builder(con)
    except Exception as exc:
        return [_note_section(section_id, title, f"{title} could not be built ({_one_line(exc)}).")]
    return result if isinstance(result, list) else [result]


def collect_sections(con) -> list[Section]:
    return [
        *_guarded(runs_section, con, "runs", "Runs"),
        *_guarded(llm_usage_section, con, "llm-usage", "LLM usage"),
        *benchmark_sections(con),
    ]


def _atomic_write_text(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)


def write_report(out: str | Path | None = None) -> Path:
    """Write the self-contained HTML report built from the marts; returns its path."""
    p = paths()
    target = Path(out).resolve() if out else p.reports / "index.html"
    with connect(read_only=True) as con:
        sections = collect_sections(con)
    meta = ReportMeta(generated_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
                      warehouse=str(p.db), code_version=code_version())
    _atomic_write_text(target, render_html(sections, meta))
    return target
