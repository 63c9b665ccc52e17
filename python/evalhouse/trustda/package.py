"""Table packages on disk: content-addressed folders, atomic writes, lexical-preserving CSV edits.

A package is a folder of the files a system may see. Its name is a hash of its content, so the
same package is stored once, and it is written to a temporary folder then renamed: a package
folder that exists is complete.
"""
from __future__ import annotations

import csv
import hashlib
import io
import os
import shutil
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..config import paths
from ..errors import BadInput

NULL_SPELLINGS = ("", "NA", "NULL", "null", "N/A", "NaN", "nan")
TABLE_EXTENSIONS = (".csv", ".tsv", ".xlsx")


def packages_root() -> Path:
    return paths().packages / "trustda"


def package_dir(relative_path: str | Path) -> Path:
    """Absolute folder of a package given its path relative to ``config.paths().packages``."""
    return paths().packages / relative_path


def relative_package_path(folder: Path) -> str:
    return str(Path(folder).resolve().relative_to(paths().packages.resolve()))


def content_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(folder)).encode())
        digest.update(b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()[:20]


def commit_package(staging: Path, kind: str) -> tuple[Path, str]:
    """Move a fully written staging folder to ``<root>/<kind>/<hash>``; returns (folder, hash)."""
    digest = content_hash(staging)
    target = packages_root() / kind / digest
    if target.exists():
        shutil.rmtree(staging, ignore_errors=True)
        return target, digest
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(staging, target)
    except OSError:  # another worker committed the same content first
        shutil.rmtree(staging, ignore_errors=True)
    return target, digest


def new_staging_dir() -> Path:
    folder = packages_root() / "_staging" / uuid.uuid4().hex
    folder.mkdir(parents=True)
    return folder


def table_files(folder: Path) -> list[str]:
    return sorted(p.name for p in Path(folder).iterdir() if p.suffix.lower() in TABLE_EXTENSIONS)


def table_name_for(file_name: str, sheet: str | None = None) -> str:
    stem = sanitize(Path(file_name).stem)
    return f"{stem}__{sanitize(sheet)}" if sheet is not None else stem


def sanitize(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)


@dataclass
class CsvDoc:
    """A CSV/TSV file as lists of strings plus its dialect, so edits keep every untouched cell
    byte-for-byte (delimiter, BOM, line ending and NULL spelling are kept)."""

    header: list[str]
    rows: list[list[str]]
    delimiter: str = ","
    bom: bool = False
    newline: str = "\n"
    null_token: str = ""
    quote_all: bool = False
    extra: dict = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> "CsvDoc":
        raw = Path(path).read_bytes()
        bom = raw.startswith(b"\xef\xbb\xbf")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise BadInput(f"{path.name}: not UTF-8 text (byte {exc.start}); cannot parse") from None
        doc = cls.read_text(text, Path(path).name, Path(path).suffix.lower() == ".tsv")
        doc.bom = bom
        return doc

    @classmethod
    def read_text(cls, text: str, name: str = "file.csv", tsv: bool = False) -> "CsvDoc":
        path = Path(name)
        bom = False
        if not text.strip():
            raise BadInput(f"{path.name}: the file is empty")
        head = text[:10000]
        newline = "\r\n" if "\r\n" in head else ("\r" if "\r" in head and "\n" not in head else "\n")
        delimiter = "\t" if tsv else _sniff_delimiter(path, text)
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        try:
            records = [r for r in reader]
        except csv.Error as exc:
            raise BadInput(f"{path.name}: CSV parse error ({exc})") from None
        while records and not records[-1]:
            records.pop()
        header, rows = records[0], records[1:]
        for i, row in enumerate(rows):
            if len(row) != len(header):
                raise BadInput(f"{path.name}, row {i + 2}: {len(row)} fields where the header has "
                               f"{len(header)} (ragged row)")
        quote_all = text.lstrip("\ufeff").startswith('"') and all(h for h in header)
        doc = cls(header, rows, delimiter, bom, newline, _null_token(rows), quote_all)
        doc.extra["final_newline"] = text.endswith(("\n", "\r"))
        return doc

    def to_text(self) -> str:
        buf = io.StringIO()
        quoting = csv.QUOTE_ALL if self.quote_all else csv.QUOTE_MINIMAL
        writer = csv.writer(buf, delimiter=self.delimiter, lineterminator=self.newline, quoting=quoting)
        writer.writerow(self.header)
        writer.writerows(self.rows)
        out = buf.getvalue()
        if self.extra.get("final_newline") is False:
            out = out[:-len(self.newline)]
        return out

    def write(self, path: Path) -> None:
        data = self.to_text().encode("utf-8")
        Path(path).write_bytes((b"\xef\xbb\xbf" if self.bom else b"") + data)

    def copy(self) -> "CsvDoc":
        return CsvDoc(list(self.header), [list(r) for r in self.rows], self.delimiter, self.bom,
                      self.newline, self.null_token, self.quote_all, dict(self.extra))

    def col(self, name: str) -> int:
        return self.header.index(name)

    def column(self, name: str) -> list[str]:
        i = self.col(name)
        return [r[i] for r in self.rows]

    def is_null(self, value: str) -> bool:
        return value in NULL_SPELLINGS


def _sniff_delimiter(path: Path, text: str) -> str:
    if path.suffix.lower() == ".tsv":
        return "\t"
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    counts = {d: first.count(d) for d in (",", ";", "\t", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def _null_token(rows: list[list[str]]) -> str:
    seen = Counter(v for r in rows for v in r if v in NULL_SPELLINGS)
    return seen.most_common(1)[0][0] if seen else ""
