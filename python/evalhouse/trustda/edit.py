"""One editing interface over a CSV file or the table region of an Excel sheet.

CSV edits keep strings (untouched cells stay byte-identical, NULL spelling kept). Excel edits
work in place on an openpyxl copy of the workbook, moving whole cells (value, type, style,
number format) so "01" stays a string and formats survive.
"""
from __future__ import annotations

import copy
import math
from pathlib import Path

from openpyxl import load_workbook

from .package import CsvDoc
from .workbook import SheetLayout, detect_layout


def _num(value) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return None if isinstance(value, float) and math.isnan(value) else float(value)
    try:
        x = float(str(value).strip())
    except ValueError:
        return None
    return None if math.isnan(x) else x


class CsvTable:
    kind = "csv"

    def __init__(self, path: Path):
        self.path = path
        self.file = path.name
        self.sheet = None
        self.doc = CsvDoc.read(path)

    @property
    def headers(self) -> list[str]:
        return self.doc.header

    @property
    def n_rows(self) -> int:
        return len(self.doc.rows)

    def col(self, name: str) -> int:
        if name in self.doc.header:
            return self.doc.header.index(name)
        stripped = [h.strip() for h in self.doc.header]  # DuckDB trims header whitespace
        return stripped.index(name.strip())

    def get(self, r: int, c: int):
        return self.doc.rows[r][c]

    def is_null(self, r: int, c: int) -> bool:
        return self.doc.is_null(self.doc.rows[r][c])

    def numeric(self, c: int) -> list[float | None]:
        return [None if self.doc.is_null(row[c]) else _num(row[c]) for row in self.doc.rows]

    def decimals(self, c: int) -> int:
        best = 0
        for row in self.doc.rows:
            v = row[c]
            if "." in v and not self.doc.is_null(v):
                best = max(best, len(v.split(".", 1)[1]))
        return best

    def encode_number(self, x: float | None, c: int | None = None, decimals: int | None = None) -> str:
        if x is None:
            return self.doc.null_token
        d = decimals if decimals is not None else (self.decimals(c) if c is not None else 4)
        if d == 0 and float(x).is_integer():
            return str(int(round(x)))
        return f"{x:.{max(d, 1)}f}".rstrip("0").rstrip(".") if d else str(round(x, 6))

    def encode_text(self, s: str | None) -> str:
        return self.doc.null_token if s is None else s

    def set(self, r: int, c: int, value) -> None:
        self.doc.rows[r][c] = value

    def set_null(self, r: int, c: int) -> None:
        self.doc.rows[r][c] = self.doc.null_token

    def rename(self, c: int, name: str) -> None:
        self.doc.header[c] = name

    def permute_rows(self, order: list[int]) -> None:
        self.doc.rows = [self.doc.rows[i] for i in order]

    def permute_cols(self, order: list[int]) -> None:
        self.doc.header = [self.doc.header[i] for i in order]
        self.doc.rows = [[row[i] for i in order] for row in self.doc.rows]

    def insert_col(self, at: int, header: str, values: list, like: int | None = None) -> None:
        self.doc.header.insert(at, header)
        for row, v in zip(self.doc.rows, values):
            row.insert(at, v)

    def delete_col(self, c: int) -> None:
        del self.doc.header[c]
        for row in self.doc.rows:
            del row[c]

    def append_rows(self, rows: list[list]) -> None:
        self.doc.rows.extend(rows)

    def save(self, path: Path | None = None) -> None:
        self.doc.write(path or self.path)


class SheetTable:
    """The data region of one sheet (flat header expected for column moves)."""

    kind = "xlsx"

    def __init__(self, path: Path, sheet: str, wb=None):
        self.path = path
        self.file = path.name
        self.wb = wb or load_workbook(path)
        self.ws = self.wb[sheet]
        self.sheet = sheet
        layout = detect_layout(self.ws)
        if layout is None:
            raise ValueError(f"{path.name}[{sheet}]: no table region")
        self.layout: SheetLayout = layout

    @property
    def headers(self) -> list[str]:
        return list(self.layout.columns)

    @property
    def n_rows(self) -> int:
        return len(self.layout.data_rows)

    def col(self, name: str) -> int:
        return self.layout.columns.index(name)

    def _cell(self, r: int, c: int):
        return self.ws.cell(row=self.layout.first_data_row + r, column=self.layout.first_col + c)

    def get(self, r: int, c: int):
        return self._cell(r, c).value

    def is_null(self, r: int, c: int) -> bool:
        v = self.get(r, c)
        return v is None or (isinstance(v, str) and not v.strip())

    def numeric(self, c: int) -> list[float | None]:
        out = []
        for r in range(self.n_rows):
            v = self.get(r, c)
            out.append(_num(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None)
        return out

    def decimals(self, c: int) -> int:
        return max((len(repr(v).split(".", 1)[1]) for v in (self.get(r, c) for r in range(self.n_rows))
                    if isinstance(v, float) and "." in repr(v)), default=0)

    def encode_number(self, x, c=None, decimals=None):
        if x is None:
            return None
        if decimals is not None:
            x = round(x, decimals)
        return int(x) if float(x).is_integer() and (c is None or self.decimals(c) == 0) else float(x)

    def encode_text(self, s):
        return s

    def set(self, r: int, c: int, value) -> None:
        self._cell(r, c).value = value

    def set_null(self, r: int, c: int) -> None:
        self._cell(r, c).value = None

    def header_cell(self, c: int):
        return self.ws.cell(row=self.layout.header_rows[-1], column=self.layout.first_col + c)

    def rename(self, c: int, name: str) -> None:
        self.header_cell(c).value = name
        self.layout.columns[c] = name

    def _snapshot(self, row: int, col: int):
        cell = self.ws.cell(row=row, column=col)
        return (cell.value, copy.copy(cell._style), cell.number_format, copy.copy(cell.comment), cell.hyperlink)

    def _restore(self, row: int, col: int, snap) -> None:
        cell = self.ws.cell(row=row, column=col)
        cell.value, cell._style = snap[0], copy.copy(snap[1])
        cell.number_format = snap[2]
        cell.comment = snap[3]
        if snap[4] is not None:
            cell.hyperlink = snap[4]

    def _cols(self):
        return range(self.layout.first_col, self.layout.last_col + 1)

    def permute_rows(self, order: list[int]) -> None:
        rows = list(self.layout.data_rows)
        snaps = [[self._snapshot(r, c) for c in self._cols()] for r in rows]
        for target, source in zip(rows, order):
            for c, snap in zip(self._cols(), snaps[source]):
                self._restore(target, c, snap)

    def _region_rows(self):
        return list(self.layout.header_rows) + list(self.layout.data_rows)

    def permute_cols(self, order: list[int]) -> None:
        cols = list(self._cols())
        for r in self._region_rows():
            snaps = [self._snapshot(r, c) for c in cols]
            for target, source in zip(cols, order):
                self._restore(r, target, snaps[source])
        self.layout.columns = [self.layout.columns[i] for i in order]

    def insert_col(self, at: int, header: str, values: list, like: int | None = None) -> None:
        """Shift the region's cells right of ``at`` by one column and write the new column."""
        first = self.layout.first_col
        for r in self._region_rows():
            for c in range(self.layout.last_col, first + at - 1, -1):
                self._restore(r, c + 1, self._snapshot(r, c))
        like_col = first + (like if like is not None else max(at - 1, 0))
        if like is not None and like >= at:
            like_col += 1
        for r in self.layout.header_rows:
            self._restore(r, first + at, self._snapshot(r, like_col))
            self.ws.cell(row=r, column=first + at).value = None
        self.ws.cell(row=self.layout.header_rows[-1], column=first + at).value = header
        for i, r in enumerate(self.layout.data_rows):
            self._restore(r, first + at, self._snapshot(r, like_col))
            self.ws.cell(row=r, column=first + at).value = values[i]
        self.layout.last_col += 1
        self.layout.columns.insert(at, header)

    def delete_col(self, c: int) -> None:
        first, last = self.layout.first_col, self.layout.last_col
        for r in self._region_rows():
            for cc in range(first + c, last):
                self._restore(r, cc, self._snapshot(r, cc + 1))
            cell = self.ws.cell(row=r, column=last)
            cell.value = None
            cell.style = "Normal"
        self.layout.last_col -= 1
        del self.layout.columns[c]

    def append_rows(self, rows: list[list]) -> None:
        """Insert rows right after the data region (the note below moves down)."""
        at = self.layout.last_data_row + 1
        self.ws.insert_rows(at, amount=len(rows))
        for i, values in enumerate(rows):
            for k, v in enumerate(values):
                src = self.ws.cell(row=self.layout.last_data_row, column=self.layout.first_col + k)
                cell = self.ws.cell(row=at + i, column=self.layout.first_col + k)
                cell._style = copy.copy(src._style)
                cell.value = v
        self.layout.last_data_row += len(rows)

    def save(self, path: Path | None = None) -> None:
        self.wb.save(path or self.path)


def open_table(folder: Path, file: str, sheet: str | None = None, wb=None):
    path = Path(folder) / file
    if path.suffix.lower() == ".xlsx":
        return SheetTable(path, sheet or "Data", wb=wb)
    return CsvTable(path)


def insert_row(tbl, at: int, values: list) -> None:
    """Insert one data row before data index ``at`` (CSV or sheet), copying the row style above."""
    if tbl.kind == "csv":
        tbl.doc.rows.insert(at, values)
        return
    row = tbl.layout.first_data_row + at
    tbl.ws.insert_rows(row, amount=1)
    for k, v in enumerate(values):
        src = tbl.ws.cell(row=row - 1 if at > 0 else row + 1, column=tbl.layout.first_col + k)
        cell = tbl.ws.cell(row=row, column=tbl.layout.first_col + k)
        cell._style = copy.copy(src._style)
        cell.value = v
    tbl.layout.last_data_row += 1
