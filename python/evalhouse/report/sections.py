"""What a report section is. Benchmarks return these from marts; the renderer draws them.

Every chart is data plus a declared kind; the renderer draws it as inline SVG (no CDN).

For benchmark authors: ``sections(con)`` queries marts and returns ``[Section(...)]``.
``Chart.data`` is ``frame.to_dict("records")`` (numpy numbers, NaN/NA and timestamps are
fine: missing values are skipped, not drawn as 0). A chart with no rows shows "No data to
chart yet"; a chart naming a column its data lacks shows a visible error line. Intros and notes
may use `backticks` for code. Bars and arrows are drawn horizontally (categories on the left).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

import pandas as pd

ChartKind = Literal["bar", "grouped_bar", "line", "scatter", "heatmap", "arrows"]


@dataclass
class Table:
    """A table rendered server-side. Floats get per-column decimals from their magnitude unless
    `formats` gives a Python format spec for the column (e.g. {"accuracy": ".1%"})."""

    title: str
    frame: pd.DataFrame
    note: str = ""
    formats: dict[str, str] = field(default_factory=dict)
    max_rows: int = 500


@dataclass
class Chart:
    """A chart over `data` (list of row dicts).

    bar / grouped_bar: x = category column, y = value column, series = group column (grouped_bar).
    line / scatter: x, y numeric (line: x may be categorical), series = one line/colour per value.
    heatmap: x = column category, y = row category, value = cell value column.
    arrows: x = label column, y = 'from' value column, value = 'to' value column (e.g. redacted -> restored).
    Optional low/high name interval columns drawn as error bars (bar, scatter, line).
    """

    title: str
    kind: ChartKind
    data: list[dict]
    x: str
    y: str
    series: str | None = None
    value: str | None = None
    low: str | None = None
    high: str | None = None
    x_label: str = ""
    y_label: str = ""
    note: str = ""


Block = Union[Table, Chart]


@dataclass
class Section:
    id: str
    title: str
    intro: str = ""
    blocks: list[Block] = field(default_factory=list)
