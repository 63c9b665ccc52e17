"""Sections -> one self-contained HTML page: tables rendered here, charts drawn in the browser
by the inline renderer (assets/charts.js) from JSON embedded beside each chart. No external
resource of any kind is referenced."""
from __future__ import annotations

import json
import math
import numbers
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from html import escape
from pathlib import Path
from typing import Any, get_args

import pandas as pd

from .sections import Chart, ChartKind, Section, Table

ASSETS = Path(__file__).with_name("assets")
CHART_KINDS = frozenset(get_args(ChartKind))
MAX_CELL_CHARS = 120
# Columns each chart kind needs besides the optional series/low/high.
REQUIRED_FIELDS = {"heatmap": ("x", "y", "value"), "arrows": ("x", "y", "value")}


@dataclass(frozen=True)
class ReportMeta:
    generated_at: str
    warehouse: str
    code_version: str
    title: str = "evalhouse report"


# ---------------------------------------------------------------- values

def _missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) and math.isnan(value)


def json_value(value: Any) -> Any:
    """A JSON-safe scalar: NaN/NA -> null, numpy numbers -> Python, timestamps -> ISO text."""
    if _missing(value):
        return None
    if isinstance(value, (bool, str)):
        return value
    if hasattr(value, "dtype") and getattr(value, "shape", None) == ():
        return json_value(value.item())  # numpy scalar -> Python (NaT -> None)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, (numbers.Real, Decimal)):
        f = float(value)
        return f if math.isfinite(f) else None
    if isinstance(value, (datetime, date, pd.Timestamp)):
        return value.isoformat()
    return str(value)


def prose(text: str) -> str:
    """Escaped text where `backticked` spans become <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def _script_json(payload: Any) -> str:
    """JSON that can sit inside <script> without ending it or opening a comment."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---------------------------------------------------------------- tables

def _float_formatter(values: pd.Series):
    finite = values[values.map(lambda v: not _missing(v))].astype(float).abs()
    biggest = float(finite.max()) if len(finite) else 0.0
    if biggest >= 1000:
        return lambda v: f"{v:,.0f}"
    if biggest >= 100:
        return lambda v: f"{v:,.1f}"
    if biggest >= 1 or biggest == 0:
        return lambda v: f"{v:.2f}"
    if biggest >= 0.01:
        return lambda v: f"{v:.3f}"
    return lambda v: f"{v:.3g}"


def _cell_text(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, (datetime, pd.Timestamp)):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _column_cells(column: pd.Series, spec: str | None) -> tuple[list[str], bool]:
    """Formatted cell texts (None for missing) and whether the column is numeric."""
    dtype = column.dtype
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    if spec:
        fmt = lambda v: format(v, spec)  # noqa: E731
    elif pd.api.types.is_float_dtype(dtype):
        fmt = _float_formatter(column)
    elif numeric:
        fmt = lambda v: f"{int(v):,}"  # noqa: E731
    elif pd.api.types.is_datetime64_any_dtype(dtype):
        fmt = lambda v: v.strftime("%Y-%m-%d %H:%M:%S")  # noqa: E731
    else:
        fmt = _cell_text
    return [None if _missing(v) else fmt(v) for v in column.tolist()], numeric


def _cell_html(text: str | None, numeric: bool) -> str:
    if text is None:
        return '<td class="missing">–</td>'
    cls = ' class="num"' if numeric else ""
    if len(text) > MAX_CELL_CHARS:
        return f'<td{cls} title="{escape(text)}">{escape(text[:MAX_CELL_CHARS - 1])}…</td>'
    return f"<td{cls}>{escape(text)}</td>"


def render_table(table: Table) -> str:
    frame = table.frame
    shown = frame.head(table.max_rows)
    columns = [str(c) for c in shown.columns]
    cells = [_column_cells(shown.iloc[:, i], table.formats.get(name)) for i, name in enumerate(columns)]
    head = "".join(f'<th{" class=num" if numeric else ""}>{escape(name)}</th>'
                   for name, (_, numeric) in zip(columns, cells))
    body = "".join(
        "<tr>" + "".join(_cell_html(texts[r], numeric) for texts, numeric in cells) + "</tr>"
        for r in range(len(shown)))
    notes = [table.note] if table.note else []
    if len(frame) > len(shown):
        notes.append(f"Showing the first {len(shown):,} of {len(frame):,} rows.")
    if frame.empty:
        notes.append("No rows.")
    note_html = "".join(f'<p class="note">{prose(n)}</p>' for n in notes)
    return (f'<div class="block table-block"><h3>{escape(table.title)}</h3>'
            f'<div class="table-wrap"><table class="data"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>{note_html}</div>")


# ---------------------------------------------------------------- charts

def chart_problem(chart: Chart) -> str | None:
    """Why this chart cannot be drawn, or None."""
    if chart.kind not in CHART_KINDS:
        return f"unknown chart kind '{chart.kind}' (choose from {', '.join(sorted(CHART_KINDS))})"
    needed = [getattr(chart, f) for f in REQUIRED_FIELDS.get(chart.kind, ("x", "y"))]
    if None in needed:
        return f"a {chart.kind} chart needs {', '.join(REQUIRED_FIELDS.get(chart.kind, ('x', 'y')))}"
    if chart.kind == "grouped_bar" and not chart.series:
        return "a grouped_bar chart needs a series column"
    if (chart.low is None) != (chart.high is None):
        return "error bars need both low and high"
    columns = set().union(*(row.keys() for row in chart.data)) if chart.data else set()
    wanted = [c for c in (chart.x, chart.y, chart.series, chart.value, chart.low, chart.high) if c]
    missing = [c for c in wanted if c not in columns]
    if chart.data and missing:
        return f"column(s) {', '.join(missing)} not in the chart data"
    return None


def chart_spec(chart: Chart) -> dict:
    fields = [c for c in dict.fromkeys((chart.x, chart.y, chart.series, chart.value, chart.low, chart.high)) if c]
    return {
        "kind": chart.kind, "title": chart.title, "x": chart.x, "y": chart.y, "series": chart.series,
        "value": chart.value, "low": chart.low, "high": chart.high,
        "x_label": chart.x_label, "y_label": chart.y_label,
        "data": [{f: json_value(row.get(f)) for f in fields} for row in chart.data],
    }


def render_chart(chart: Chart, chart_id: str) -> str:
    title = escape(chart.title)
    note = f'<p class="note">{prose(chart.note)}</p>' if chart.note else ""
    problem = chart_problem(chart)
    if problem:
        return (f'<div class="block"><h3>{title}</h3>'
                f'<p class="chart-error">This chart could not be drawn: {escape(problem)}.</p>{note}</div>')
    if not chart.data:
        return f'<div class="block"><h3>{title}</h3><p class="empty-chart">No data to chart yet.</p>{note}</div>'
    return (f'<div class="block"><figure class="chart" id="{chart_id}" data-kind="{chart.kind}">'
            f"<figcaption>{title}</figcaption>"
            f'<script type="application/json" class="chart-spec">{_script_json(chart_spec(chart))}</script>'
            f'<div class="chart-canvas"></div></figure>{note}</div>')


# ---------------------------------------------------------------- page

def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def _unique_ids(sections: list[Section]) -> list[str]:
    seen: dict[str, int] = {}
    ids = []
    for section in sections:
        base = _slug(section.id or section.title)
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def render_section(section: Section, section_id: str) -> str:
    parts = [f'<section class="report-section" id="{section_id}"><h2>{escape(section.title)}</h2>']
    if section.intro:
        parts.append(f'<p class="intro">{prose(section.intro)}</p>')
    for index, block in enumerate(section.blocks):
        if isinstance(block, Chart):
            parts.append(render_chart(block, f"{section_id}-chart-{index}"))
        elif isinstance(block, Table):
            parts.append(render_table(block))
        else:
            parts.append(f'<p class="chart-error">Unknown block type {escape(type(block).__name__)}.</p>')
    parts.append("</section>")
    return "".join(parts)


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def render_html(sections: list[Section], meta: ReportMeta) -> str:
    """The whole page: CSS, JS and data inline."""
    ids = _unique_ids(sections)
    toc = "".join(f'<a href="#{sid}">{escape(s.title)}</a>' for s, sid in zip(sections, ids))
    body = "".join(render_section(s, sid) for s, sid in zip(sections, ids))
    script = _asset("charts.js").replace("</script", "<\\/script")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="evalhouse">
<title>{escape(meta.title)}</title>
<style>
{_asset("report.css")}
</style>
</head>
<body>
<header class="report-header">
<h1>{escape(meta.title)}</h1>
<dl>
<dt>generated</dt><dd>{escape(meta.generated_at)}</dd>
<dt>warehouse</dt><dd>{escape(meta.warehouse)}</dd>
<dt>code version</dt><dd>{escape(meta.code_version)}</dd>
</dl>
</header>
<nav class="toc">{toc}</nav>
<main>
{body}
</main>
<footer>Built from the warehouse marts only. Charts are drawn by an inline script; hover a mark for its values.</footer>
<script>
{script}
</script>
</body>
</html>
"""
