"""Reading a package's data files for the evidence gate: raw headers (duplicates kept), values,
and the Excel structure (title rows, merged multi-level headers) the gate reasons about."""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

CSV_SUFFIXES = {".csv", ".tsv", ".txt"}
EXCEL_SUFFIXES = {".xlsx", ".xlsm"}
DATA_SUFFIXES = CSV_SUFFIXES | EXCEL_SUFFIXES
NULL_SPELLINGS = ["", "NA", "NULL", "null", "NaN", "nan"]
MAX_ROWS = 200_000


@dataclass
class SheetData:
    file: str
    sheet: str | None
    headers: list[str]
    frame: pd.DataFrame  # positional columns 0..n-1
    merged_header_rows: int = 0
    blank_header_share: float = 0.0
    _lower: dict = field(default_factory=dict, repr=False)
    _text: list | None = field(default=None, repr=False)

    def text_columns(self) -> list[int]:
        if self._text is None:
            self._text = [i for i in range(self.frame.shape[1])
                          if self.frame.dtypes.iloc[i] == object or str(self.frame.dtypes.iloc[i]) in ("string", "str")]
        return self._text

    def lower_values(self, i: int) -> set[str]:
        if i not in self._lower:
            col = self.frame.iloc[:, i].dropna()
            self._lower[i] = set(col.astype(str).str.strip().str.lower().unique())
        return self._lower[i]


def read_package(package: Path) -> tuple[list[SheetData], list[tuple[str, str]]]:
    """All tables of a package folder (or one file); files that cannot be parsed are listed apart."""
    files = sorted(p for p in package.iterdir() if p.is_file()) if package.is_dir() else [package]
    sheets: list[SheetData] = []
    unreadable: list[tuple[str, str]] = []
    for path in files:
        suffix = path.suffix.lower()
        try:
            if suffix in CSV_SUFFIXES:
                sheets.append(read_csv(path))
            elif suffix in EXCEL_SUFFIXES:
                sheets.extend(read_excel(path))
        except Exception as exc:  # a broken file is itself evidence the gate reports
            unreadable.append((path.name, f"{type(exc).__name__}: {str(exc)[:120]}"))
    return sheets, unreadable


def read_csv(path: Path) -> SheetData:
    with open(path, newline="", encoding="utf-8-sig", errors="replace") as fh:
        sample = fh.read(8192)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else _sniff(sample)
    first = next(csv.reader([sample.splitlines()[0] if sample else ""], delimiter=delimiter), [])
    headers = [h.strip() for h in first]
    try:
        frame = pd.read_csv(path, sep=delimiter, header=None, skiprows=1, names=list(range(len(headers))),
                            na_values=NULL_SPELLINGS, keep_default_na=False, nrows=MAX_ROWS, index_col=False,
                            encoding="utf-8-sig", encoding_errors="replace", low_memory=False)
    except pd.errors.ParserError:
        frame = pd.read_csv(path, sep=delimiter, header=None, skiprows=1, names=list(range(len(headers))),
                            na_values=NULL_SPELLINGS, keep_default_na=False, nrows=MAX_ROWS, index_col=False,
                            encoding="utf-8-sig", encoding_errors="replace", engine="python", on_bad_lines="skip")
    blank = sum(1 for h in headers if not h or h.lower().startswith("unnamed")) / max(1, len(headers))
    return SheetData(path.name, None, headers, frame, blank_header_share=blank)


def _sniff(sample: str) -> str:
    try:
        return csv.Sniffer().sniff(sample.splitlines()[0] if sample else ",", delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def read_excel(path: Path) -> list[SheetData]:
    from openpyxl import load_workbook

    wb = load_workbook(path, data_only=True)
    out = []
    for ws in wb.worksheets:
        rows = [list(r) for r in ws.iter_rows(values_only=True)]
        merged = [m for m in ws.merged_cells.ranges if m.max_col > m.min_col]
        sheet = _sheet_from_rows(path.name, ws.title, rows, merged)
        if sheet is not None:
            out.append(sheet)
    wb.close()
    return out


def _filled(row: list) -> list[int]:
    return [i for i, v in enumerate(row) if v is not None and str(v).strip() != ""]


def _sheet_from_rows(file: str, title: str, rows: list[list], merged) -> SheetData | None:
    start = 0
    while start < len(rows) and len(_filled(rows[start])) <= 1:  # title rows and blank lead rows
        start += 1
    if start >= len(rows):
        return None
    width = max(len(r) for r in rows)
    rows = [r + [None] * (width - len(r)) for r in rows]
    header_rows = 1
    parents = [m for m in merged if m.min_row == start + 1]
    if parents and start + 1 < len(rows):
        header_rows = 2
    headers = _flatten_headers(rows[start:start + header_rows], parents, width)
    body = []
    for r in rows[start + header_rows:]:
        filled = _filled(r)
        if not filled:
            break
        if len(filled) == 1 and isinstance(r[filled[0]], str) and width > 2:
            continue  # a note row, not data
        body.append(r)
    used = [i for i in range(width) if headers[i] or any(b[i] is not None for b in body)]
    headers = [headers[i] for i in used]
    frame = pd.DataFrame([[b[i] for i in used] for b in body], columns=list(range(len(used))))
    frame = frame.infer_objects()
    for c in range(frame.shape[1]):
        if frame.dtypes.iloc[c] == object:
            frame[c] = frame[c].where(~frame[c].isin(NULL_SPELLINGS), None)
    blank = sum(1 for h in headers if not h) / max(1, len(headers))
    return SheetData(file, title, headers, frame, merged_header_rows=header_rows if header_rows > 1 else 0,
                     blank_header_share=blank)


def _flatten_headers(header_rows: list[list], parents, width: int) -> list[str]:
    if len(header_rows) == 1:
        return [str(v).strip() if v is not None else "" for v in header_rows[0]]
    top = [str(v).strip() if v is not None else "" for v in header_rows[0]]
    for m in parents:  # forward-fill merged parent cells
        for c in range(m.min_col, m.max_col + 1):
            top[c - 1] = top[m.min_col - 1]
    low = [str(v).strip() if v is not None else "" for v in header_rows[1]]
    return [f"{p} / {c}" if p and c and p != c else (c or p) for p, c in zip(top, low)]
