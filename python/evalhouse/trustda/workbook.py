"""Reading the data region of an Excel sheet with openpyxl (title rows, multi-level headers, notes).

Layout rules (documented in CONTRACT.md §4):
- leading rows that are empty or hold a single value (titles, notes) are skipped;
- the header starts at the first row with at least two values; a header row with horizontal
  merged cells (a parent level) pulls in the row below it, and vertical merges extend the block;
- data rows follow until the first empty row or a row holding a single text value (a note);
- a column's name joins its header levels with `` / `` (merged parents forward-filled).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from openpyxl.worksheet.worksheet import Worksheet

HEADER_JOIN = " / "
MAX_HEADER_ROWS = 4


@dataclass
class SheetLayout:
    sheet: str
    header_rows: list[int]  # 1-based row numbers
    first_data_row: int
    last_data_row: int  # inclusive; < first_data_row when the table has no rows
    first_col: int
    last_col: int
    columns: list[str]  # flattened names, deduplicated like DuckDB does (name, name_1, ...)
    raw_columns: list[str]  # flattened names before deduplication

    @property
    def data_rows(self) -> range:
        return range(self.first_data_row, self.last_data_row + 1)


def _row_values(ws: Worksheet, r: int, max_col: int) -> list:
    return [ws.cell(row=r, column=c).value for c in range(1, max_col + 1)]


def _filled(values: list) -> list[int]:
    return [i for i, v in enumerate(values) if v is not None and not (isinstance(v, str) and not v.strip())]


def detect_layout(ws: Worksheet) -> SheetLayout | None:
    """The sheet's table layout, or None when the sheet holds no table (e.g. a notes sheet)."""
    max_row, max_col = ws.max_row, ws.max_column
    start = None
    for r in range(1, max_row + 1):
        if len(_filled(_row_values(ws, r, max_col))) >= 2:
            start = r
            break
    if start is None:
        return None
    end = _header_end(ws, start)
    header_rows = list(range(start, end + 1))
    cols = sorted({c for r in header_rows for c in _filled(_row_values(ws, r, max_col))})
    first_col, last_col = cols[0] + 1, cols[-1] + 1
    last = end
    for r in range(end + 1, max_row + 1):
        values = _row_values(ws, r, max_col)[first_col - 1:last_col]
        filled = _filled(values)
        if not filled or (len(filled) == 1 and isinstance(values[filled[0]], str) and last_col > first_col):
            break
        last = r
    raw = _flatten_header(ws, header_rows, first_col, last_col)
    return SheetLayout(ws.title, header_rows, end + 1, last, first_col, last_col, dedupe(raw), raw)


def _header_end(ws: Worksheet, start: int) -> int:
    end = start
    merges = list(ws.merged_cells.ranges)
    for _ in range(MAX_HEADER_ROWS):
        grown = end
        for m in merges:
            if start <= m.min_row <= end:
                if m.max_row > grown:
                    grown = m.max_row
                if m.min_col < m.max_col and m.min_row == end and m.max_row == end:
                    grown = max(grown, end + 1)
        if grown == end:
            break
        end = min(grown, start + MAX_HEADER_ROWS - 1)
    return end


def _flatten_header(ws: Worksheet, header_rows: list[int], first_col: int, last_col: int) -> list[str]:
    owner = {}
    for m in ws.merged_cells.ranges:
        for r in range(m.min_row, m.max_row + 1):
            for c in range(m.min_col, m.max_col + 1):
                owner[(r, c)] = (m.min_row, m.min_col)
    names = []
    for c in range(first_col, last_col + 1):
        parts: list[str] = []
        seen_cells = set()
        for r in header_rows:
            cell = owner.get((r, c), (r, c))
            if cell in seen_cells:
                continue
            seen_cells.add(cell)
            value = ws.cell(row=cell[0], column=cell[1]).value
            if value is not None and str(value).strip():
                parts.append(str(value).strip())
        names.append(HEADER_JOIN.join(parts) if parts else f"column_{c}")
    return names


def dedupe(names: list[str]) -> list[str]:
    """Duplicate names get ``_1``, ``_2``... (DuckDB's convention for CSV headers)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        if name in seen:
            seen[name] += 1
            candidate = f"{name}_{seen[name]}"
            while candidate in seen:
                seen[name] += 1
                candidate = f"{name}_{seen[name]}"
            seen[candidate] = 0
            out.append(candidate)
        else:
            seen[name] = 0
            out.append(name)
    return out


def read_records(ws: Worksheet, layout: SheetLayout) -> list[list]:
    rows = []
    for r in layout.data_rows:
        rows.append([_plain(ws.cell(row=r, column=c).value) for c in range(layout.first_col, layout.last_col + 1)])
    return rows


def _plain(value):
    if isinstance(value, str) and not value.strip():
        return None
    if isinstance(value, datetime) and value.time() == datetime.min.time():
        return value.date()
    return value


def column_kind(values: list) -> str:
    """'int', 'float', 'bool', 'date' or 'str' for one column's non-null values."""
    present = [v for v in values if v is not None]
    if not present:
        return "str"
    if all(isinstance(v, bool) for v in present):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "int"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "float"
    if all(isinstance(v, (date, datetime)) for v in present):
        return "date"
    return "str"


_WB_CACHE: dict[tuple, object] = {}


def read_workbook(path):
    """A parsed workbook for READ-ONLY use, cached by (path, size, mtime) within the process.
    Never edit the returned object (edits load their own copy with ``load_workbook``)."""
    from pathlib import Path

    from openpyxl import load_workbook

    p = Path(path)
    st = p.stat()
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    wb = _WB_CACHE.get(key)
    if wb is None:
        wb = load_workbook(p, data_only=False)
        if len(_WB_CACHE) >= 64:
            _WB_CACHE.pop(next(iter(_WB_CACHE)))
        _WB_CACHE[key] = wb
    return wb
