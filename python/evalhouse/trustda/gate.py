"""The evidence gate: a fast pre-analysis check of a table package against a question.

It reports the evidence requirements the package does not meet, each with evidence (file, sheet,
columns, rows). It sees only the question text and the package's data files (never an operator,
protocol, gold reason or reference answer), so it can sit in front of any analysis system.

Blocking findings (the question cannot be answered from this evidence): duplicate_header,
missing_field, nulled_values, missing_file, conflicting_values, missing_structural_context.
Advisory findings (answerable, but the analysis must act on them): non_observation_rows,
distractor_column, decoy_columns, unit_label, multi_level_header, long_format, header_synonym.
"""
from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import BadInput
from .gate_reading import DATA_SUFFIXES, SheetData, read_package

BLOCKING = ("duplicate_header", "missing_field", "nulled_values", "missing_file",
            "conflicting_values", "missing_structural_context")
ADVISORY = ("non_observation_rows", "distractor_column", "decoy_columns", "unit_label",
            "multi_level_header", "long_format", "header_synonym")
MAX_ROWS_LISTED = 20
# empty cells in a needed column above this share block, unless the question says how to treat them
# (below it: sporadic gaps that aggregation skips; DM/DAM empty far more of the answer path)
NULL_SHARE_BLOCKING = 0.3


@dataclass
class Finding:
    kind: str
    requirement: str  # the unmet (or to-be-applied) evidence requirement, one sentence
    file: str | None = None
    sheet: str | None = None
    columns: list[str] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)  # 1-based data rows (header excluded), capped

    @property
    def blocking(self) -> bool:
        return self.kind in BLOCKING

    def to_dict(self) -> dict:
        return {**asdict(self), "severity": "blocking" if self.blocking else "advisory"}


@dataclass
class GateResult:
    findings: list[Finding]
    elapsed_ms: float
    files: list[str]

    @property
    def passed(self) -> bool:
        return not any(f.blocking for f in self.findings)

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.blocking]

    @property
    def advisory(self) -> list[Finding]:
        return [f for f in self.findings if not f.blocking]

    def to_dict(self) -> dict:
        return {"passed": self.passed, "elapsed_ms": round(self.elapsed_ms, 2), "files": self.files,
                "findings": [f.to_dict() for f in self.findings]}

    def summary(self) -> str:
        if not self.findings:
            return "pass: every evidence requirement the gate checks is met"
        head = "pass with notes" if self.passed else "refuse"
        return head + ": " + "; ".join(_describe(f) for f in self.findings)


def _describe(f: Finding) -> str:
    where = "/".join(x for x in (f.file, f.sheet) if x)
    cols = ", ".join(f.columns[:6])
    rows = f", rows {f.rows[:8]}" if f.rows else ""
    return f"[{f.kind}] {f.requirement} ({where}{': ' + cols if cols else ''}{rows})"


def check(package: Path | str, question: str) -> GateResult:
    """Run every check of the gate on a package folder (or a single data file) and a question."""
    start = time.perf_counter()
    package = Path(package)
    if not package.exists():
        raise BadInput(f"evidence gate: no package at {package}")
    sheets, unreadable = read_package(package)
    terms = question_terms(question)
    findings: list[Finding] = [Finding("missing_file", f"file {name} cannot be read: {why}", file=name)
                               for name, why in unreadable]
    findings += _missing_files(package, sheets, question)
    for sheet in sheets:
        findings += _header_findings(sheet)
    findings += _unanchored_years(question, sheets)
    bound = _bind_terms(terms, sheets, findings, question)
    for sheet in sheets:
        findings += _null_findings(sheet, bound.get(id(sheet), []), terms, question)
        findings += _conflict_findings(sheet, bound.get(id(sheet), []))
        findings += _marker_row_findings(sheet)
        findings += _unit_findings(sheet, bound.get(id(sheet), []), question)
        findings += _distractor_findings(sheet, bound.get(id(sheet), []), terms)
    elapsed = (time.perf_counter() - start) * 1000
    return GateResult(_dedupe(findings), elapsed, sorted({s.file for s in sheets} | {n for n, _ in unreadable}))


# ---------------------------------------------------------------- question terms

QUOTES = re.compile(r'"([^"\n]{1,80})"|“([^”\n]{1,80})”|`([^`\n]{1,80})`|(?<![\w])\'([^\'\n]{1,60})\'(?![\w])')
FIELD_CUES = re.compile(r"^\s*(column|columns|field|fields|variable|variables|feature|features|attribute|header|"
                        r"equal to|equals|group|groups|greater than|less than|above|below)\b", re.I)
FIELD_CUES_BEFORE = re.compile(r"\b(column|columns|field|fields|variable|variables|feature|features|attribute)s?\s*$", re.I)
IDENTIFIER = re.compile(r"\b([A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]+)\b")
NULL_CUES = re.compile(r"\b(missing|null|nulls|nan|na|empty|blank|impute|imputation|fill|fillna|dropna|drop rows|incomplete)\b", re.I)


@dataclass
class Term:
    text: str
    is_field: bool  # the question marks it as a field (a cue word, or an identifier shape)
    quoted: bool


DERIVED_CUES = re.compile(r"\b(new|creat\w*|generat\w*|deriv\w*|add|adding|called|named|engineer\w*|"
                          r"store\w*|label(?:led|ed)?\s+as|encode\w*|bin\w*|assign\w*)\b[^.;:]*$", re.I)


def question_terms(question: str) -> list[Term]:
    """Field-like terms of a question: quoted phrases and identifier-shaped words. A term the
    question asks to create ("a new feature called 'X'") is not an evidence requirement."""
    question = question or ""
    terms: dict[str, Term] = {}
    derived: set[str] = set()
    for m in QUOTES.finditer(question):
        text = next(g for g in m.groups() if g is not None).strip()
        if not text or len(text) > 60:
            continue
        after = question[m.end():m.end() + 20]
        before = question[max(0, m.start() - 60):m.start()]
        if DERIVED_CUES.search(before):
            derived.add(text.lower())
        cue = bool(FIELD_CUES.match(after) or FIELD_CUES_BEFORE.search(before[-20:])
                   or IDENTIFIER.fullmatch(text)
                   or (re.match(r"\s*\(", after) and (text.islower() or "_" in text)))
        prev = terms.get(text.lower())
        terms[text.lower()] = Term(text, cue or bool(prev and prev.is_field), True)
    for m in IDENTIFIER.finditer(question):
        text = m.group(1)
        if text.lower() not in terms:
            cue = bool(FIELD_CUES.match(question[m.end():m.end() + 20]))
            terms[text.lower()] = Term(text, cue, False)
    return [t for key, t in terms.items() if key not in derived]


def norm(text: str) -> str:
    return re.sub(r"[^a-z0-9%]+", " ", str(text).lower()).strip()


def tokens(text: str) -> set[str]:
    return {t for t in norm(re.sub(r"([a-z])([A-Z])", r"\1 \2", str(text))).split() if t}


# ---------------------------------------------------------------- binding

def _bind_terms(terms: list[Term], sheets: list[SheetData], findings: list[Finding],
                question: str = "") -> dict[int, list[int]]:
    """Columns each term binds to (per sheet); unbound field terms become findings."""
    bound: dict[int, list[int]] = {}
    for term in terms:
        hits = _column_hits(term, sheets)
        if hits:
            for sheet, col in hits:
                bound.setdefault(id(sheet), []).append(col)
            continue
        value_hits = _value_hits(term.text, sheets)
        if term.is_field:  # a field name listed in a data dictionary (text only) is not evidence
            value_hits = [(sh, c) for sh, c in value_hits if _has_numeric(sh)]
        if value_hits:
            sheet, col = value_hits[0]
            if term.is_field:
                findings.append(Finding(
                    "long_format", f"'{term.text}' is a value of column '{sheet.headers[col]}', not a column: "
                    "the table is in long form and must be pivoted or filtered on that column",
                    file=sheet.file, sheet=sheet.sheet, columns=[sheet.headers[col]]))
            continue
        twin = _unit_twin(term, sheets) or _described_synonym(term, question, sheets)
        if twin:
            sheet, col, kind = twin
            bound.setdefault(id(sheet), []).append(col)
            findings.append(Finding(
                "unit_label" if kind == "unit" else "header_synonym",
                (f"the question's field '{term.text}' is carried by '{sheet.headers[col]}' in another unit: convert "
                 "before answering") if kind == "unit" else
                (f"the question's field '{term.text}' is carried by '{sheet.headers[col]}' under another name "
                 "(every word of that header is in the question's description of the field)"),
                file=sheet.file, sheet=sheet.sheet, columns=[sheet.headers[col]]))
            continue
        if term.is_field:
            near = _near_columns(term.text, sheets)
            findings.append(Finding(
                "missing_field", f"the question needs the field '{term.text}' but no column carries it"
                + (f" (nearest headers: {', '.join(near)})" if near else ""),
                file=sheets[0].file if len(sheets) == 1 else None, columns=near))
    return bound


def _column_hits(term: Term, sheets: list[SheetData]) -> list[tuple[SheetData, int]]:
    unnamed = re.fullmatch(r"unnamed: ?(\d+)", term.text.strip(), re.I)
    if unnamed:  # pandas' name for a blank header at that position
        pos = int(unnamed.group(1))
        return [(s, pos) for s in sheets if pos < len(s.headers) and not str(s.headers[pos]).strip()]
    target = norm(term.text)
    exact = [(s, i) for s in sheets for i, h in enumerate(s.headers) if norm(h) == target]
    if exact:
        return exact
    # a header that carries the term plus a parenthesised unit or a parent prefix ("2019 / Sales")
    want = tokens(term.text)
    if not want:
        return []
    loose = []
    for s in sheets:
        for i, h in enumerate(s.headers):
            leaf = str(h).split(" / ")[-1]
            core = re.sub(r"\s*[\(\[].*?[\)\]]\s*", " ", leaf)
            if norm(core) == target or tokens(core) == want:
                loose.append((s, i))
    return loose


UNIT_TOKENS = {"mm", "cm", "m", "km", "g", "kg", "mg", "lb", "lbs", "oz", "t", "s", "ms", "sec", "min", "mins",
               "h", "hr", "hrs", "usd", "eur", "1000usd", "1000lb", "1000", "k", "pct", "percent", "per", "100k",
               "ppb", "ppm", "in", "ft", "cubic", "thousand", "thousands", "million", "millions", "mpg", "f", "c"}


def _core(text: str) -> set[str]:
    return {t for t in tokens(text) if t not in UNIT_TOKENS and not t.isdigit()}


def _unit_twin(term: Term, sheets: list[SheetData]):
    """A header naming the same quantity in another unit (bill_length_mm -> bill_length_cm)."""
    want, want_units = _core(term.text), tokens(term.text) & UNIT_TOKENS
    if not want or not want_units:
        return None
    for s in sheets:
        for i, h in enumerate(s.headers):
            have_units = tokens(h) & UNIT_TOKENS
            if _core(h) == want and have_units and have_units != want_units:
                return s, i, "unit"
    return None


def _described_synonym(term: Term, question: str, sheets: list[SheetData]):
    """A header whose every content word appears in the question's description of the field,
    e.g. '"miles_per_gallon" (fuel economy in miles per US gallon)' -> 'fuel_economy_mpg'."""
    m = re.search(re.escape(term.text) + r'["”`\']?\s*\(([^)]{3,120})\)', question or "")
    if not m:
        return None
    described = tokens(m.group(1)) | tokens(term.text)
    hits = []
    for s in sheets:
        for i, h in enumerate(s.headers):
            core = _core(h)
            if core and len(core) >= 2 and core <= described and not _core(term.text) <= core:
                hits.append((s, i, "synonym"))
    return hits[0] if len(hits) == 1 else None


def _value_hits(text: str, sheets: list[SheetData]) -> list[tuple[SheetData, int]]:
    target = text.strip().lower()
    hits = []
    for s in sheets:
        for i in s.text_columns():
            if target in s.lower_values(i):
                hits.append((s, i))
    return hits


def _has_numeric(sheet: SheetData) -> bool:
    return any(pd.api.types.is_numeric_dtype(sheet.frame.iloc[:, i]) for i in range(sheet.frame.shape[1]))


def _near_columns(text: str, sheets: list[SheetData]) -> list[str]:
    want = tokens(text)
    scored = []
    for s in sheets:
        for h in s.headers:
            overlap = len(want & tokens(h))
            if overlap:
                scored.append((-overlap, str(h)))
    return [h for _, h in sorted(scored)[:3]]


# ---------------------------------------------------------------- headers and structure

def _header_findings(sheet: SheetData) -> list[Finding]:
    out: list[Finding] = []
    counts = Counter(norm(h) for h in sheet.headers if norm(h))
    dups = [h for h, n in counts.items() if n > 1]
    if dups:
        repeated_group = len(dups) >= 2 and _repeats_as_group(sheet.headers)
        if repeated_group:
            out.append(Finding(
                "missing_structural_context",
                "sub-headers repeat without the parent headers that tell the groups apart, so the values "
                "have more than one plausible owner", file=sheet.file, sheet=sheet.sheet,
                columns=[h for h in sheet.headers if norm(h) in dups]))
        else:
            for d in dups:
                idx = [i for i, h in enumerate(sheet.headers) if norm(h) == d]
                out.append(Finding(
                    "duplicate_header", f"header '{sheet.headers[idx[0]]}' names {len(idx)} different columns "
                    f"(positions {', '.join(str(i + 1) for i in idx)}); the question's field is ambiguous",
                    file=sheet.file, sheet=sheet.sheet, columns=[sheet.headers[i] for i in idx]))
    if sheet.merged_header_rows:
        out.append(Finding(
            "multi_level_header", f"{sheet.merged_header_rows} header rows with merged parent cells: read "
            "columns as 'parent / child'", file=sheet.file, sheet=sheet.sheet,
            columns=[h for h in sheet.headers if " / " in str(h)][:12]))
    if sheet.sheet is not None and sheet.blank_header_share > 0.3 and len(sheet.headers) >= 3:
        out.append(Finding(
            "missing_structural_context", "most columns have no header, so the values cannot be tied to "
            "the fields the question names", file=sheet.file, sheet=sheet.sheet))
    return out


def _unanchored_years(question: str, sheets: list[SheetData]) -> list[Finding]:
    """A year the question selects on that no sheet name, header or value carries: the structure
    that tied the values to it (a sheet name, a parent header) is gone."""
    outside_descriptions = re.sub(r"\([^)]*\)", " ", question or "")  # "(gun murders in 2010)" describes a field
    years = set(re.findall(r"\b(1[89]\d\d|20\d\d)\b", outside_descriptions))
    if not years or not sheets:
        return []
    text = " ".join([str(s.sheet or "") + " " + s.file + " " + " ".join(map(str, s.headers)) for s in sheets])
    missing = [y for y in sorted(years) if y not in text and not any(_year_in_values(s, y) for s in sheets)]
    if not missing:
        return []
    return [Finding("missing_structural_context", f"the question selects {', '.join(missing)} but no sheet, header "
                    "or value in the package says which values belong to it", file=sheets[0].file,
                    sheet=sheets[0].sheet)]


def _year_in_values(sheet: SheetData, year: str) -> bool:
    for i in range(sheet.frame.shape[1]):
        col = sheet.frame.iloc[:, i]
        if pd.api.types.is_numeric_dtype(col):
            if (col == int(year)).any():
                return True
        elif any(year in v for v in sheet.lower_values(i)):
            return True
    return False


def _repeats_as_group(headers: list[str]) -> bool:
    """Sub-headers such as Q1,Q2,Q1,Q2: the same run of names appears at least twice."""
    names = [norm(h) for h in headers]
    for width in range(2, len(names) // 2 + 1):
        for start in range(0, len(names) - 2 * width + 1):
            if names[start:start + width] == names[start + width:start + 2 * width] and all(names[start:start + width]):
                return True
    return False


def _missing_files(package: Path, sheets: list[SheetData], question: str) -> list[Finding]:
    present = {p.name.lower() for p in (package.iterdir() if package.is_dir() else [package])}
    stems = {Path(n).stem.lower() for n in present}
    out = []
    for m in re.finditer(r"[\w\-. ]*?([\w\-]+\.(?:csv|tsv|xlsx|xlsm|xls|json))\b", question or "", re.I):
        name = m.group(1).lower()
        if name not in present and Path(name).stem not in stems:
            out.append(Finding("missing_file", f"the question refers to the file '{m.group(1)}' that the "
                               "package does not contain", file=m.group(1)))
    out += _sequence_gaps(sorted(present))
    data_files = [n for n in present if Path(n).suffix in DATA_SUFFIXES]
    if len(data_files) < 2 and MULTI_FILE_CUES.search(question or ""):
        out.append(Finding("missing_file", "the question combines several files but the package holds only "
                           f"{', '.join(data_files) or 'no data file'}: a file it needs is missing"))
    return out


MULTI_FILE_CUES = re.compile(r"\b(across|between|from both|combin\w*|join\w*|merg\w*)\b[^.?]{0,30}\b(files|tables|datasets)\b|"
                             r"\b(both|all) (the )?(files|tables)\b", re.I)


def _sequence_gaps(names: list[str]) -> list[Finding]:
    """Files named like a numbered series (sales_2019, sales_2021) with a member missing."""
    series: dict[tuple[str, str, str], list[int]] = {}
    for n in names:
        m = re.fullmatch(r"(.*?)(\d{1,4})(\D*\.(?:csv|tsv|xlsx|xlsm|xls))", n)
        if m:
            series.setdefault((m.group(1), m.group(3), str(len(m.group(2)))), []).append(int(m.group(2)))
    out = []
    for (prefix, suffix, _), nums in series.items():
        nums = sorted(set(nums))
        if len(nums) >= 2:
            gaps = [k for k in range(nums[0], nums[-1]) if k not in nums]
            if gaps and len(gaps) <= 3:
                out.append(Finding("missing_file", f"the files form a numbered series with "
                                   f"{', '.join(prefix + str(g) + suffix for g in gaps)} missing",
                                   file=prefix + str(gaps[0]) + suffix))
    return out


# ---------------------------------------------------------------- values

def _null_findings(sheet: SheetData, cols: list[int], terms: list[Term], question: str) -> list[Finding]:
    if not cols or sheet.frame.empty:
        return []
    if NULL_CUES.search(question or ""):
        return []  # the question itself says how to treat missing values
    filters = _filter_rows(sheet, terms)
    out = []
    for c in sorted(set(cols)):
        col = sheet.frame.iloc[:, c]
        isnull = col.isna().to_numpy()
        if not isnull.any():
            continue
        header = sheet.headers[c]
        if isnull.all():
            out.append(Finding("nulled_values", f"column '{header}' that the question needs holds no values",
                               file=sheet.file, sheet=sheet.sheet, columns=[header], rows=_rows(isnull)))
        elif filters is not None and filters.any() and isnull[filters].all():
            out.append(Finding("nulled_values", f"column '{header}' is empty on every row the question selects",
                               file=sheet.file, sheet=sheet.sheet, columns=[header], rows=_rows(isnull & filters)))
        elif (pattern := _structured_gap(sheet, c, isnull)) is not None:
            out.append(Finding("nulled_values", f"column '{header}' is empty exactly on the rows where {pattern}: "
                               "the values a later step needs were removed", file=sheet.file, sheet=sheet.sheet,
                               columns=[header], rows=_rows(isnull)))
        elif isnull.mean() >= NULL_SHARE_BLOCKING:
            out.append(Finding("nulled_values", f"column '{header}' is empty on {isnull.mean():.0%} of rows and "
                               "the question gives no rule for missing values", file=sheet.file,
                               sheet=sheet.sheet, columns=[header], rows=_rows(isnull)))
    return out


def _structured_gap(sheet: SheetData, c: int, isnull: np.ndarray) -> str | None:
    """Gaps that line up with a group or a threshold of another column (a whole group emptied, or
    every row above a cut) are a removed subset, not sporadic missingness."""
    frame = sheet.frame
    n_null = int(isnull.sum())
    if n_null < 5:
        return None
    for g in range(frame.shape[1]):
        if g == c:
            continue
        col = frame.iloc[:, g]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            inside, outside = col[isnull].dropna(), col[~isnull].dropna()
            if n_null >= 0.2 * len(frame) and len(inside) == n_null and len(outside) >= 5 and inside.min() > outside.max():
                return f"'{sheet.headers[g]}' is above {outside.max():g}"
        else:
            groups = col.astype("string")
            if not 2 <= groups.nunique() <= 20:
                continue
            null_groups = groups[isnull].dropna().unique()
            if len(null_groups) == 1:
                members = (groups == null_groups[0]).fillna(False).to_numpy()
                if members.sum() >= 5 and isnull[members].all() and isnull[~members].mean() <= 0.1:
                    return f"'{sheet.headers[g]}' is {null_groups[0]!r}"
    return None


def _filter_rows(sheet: SheetData, terms: list[Term]) -> np.ndarray | None:
    """Rows matching the question's quoted values (e.g. a named entity), or None."""
    mask = None
    for term in terms:
        if term.is_field:
            continue
        target = term.text.strip().lower()
        for i in sheet.text_columns():
            if target in sheet.lower_values(i):
                hit = (sheet.frame.iloc[:, i].astype("string").str.strip().str.lower() == target).fillna(False).to_numpy()
                mask = hit if mask is None else (mask & hit if (mask & hit).any() else mask)
                break
    return mask


def _conflict_findings(sheet: SheetData, cols: list[int]) -> list[Finding]:
    """Rows that agree on every other field but disagree on one: two values for one fact."""
    frame = sheet.frame
    n_rows, n_cols = frame.shape
    if n_rows < 2 or n_cols < 3 or n_rows * n_cols > 3_000_000:
        return []
    hashes = np.column_stack([pd.util.hash_array(frame.iloc[:, i].astype("string").fillna("\x00").to_numpy(dtype=object))
                              for i in range(n_cols)]).astype(np.uint64)
    weights = (np.arange(1, n_cols + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)
    with np.errstate(over="ignore"):
        weighted = hashes * weights
        total = weighted.sum(axis=1, dtype=np.uint64)
    whole_dup = pd.Series(total).duplicated(keep=False).to_numpy()
    cardinality = np.array([len(np.unique(hashes[:, i])) / n_rows for i in range(n_cols)])
    # the differing field must be a measurement (an identifier differing is two entities), and the
    # agreeing fields must include an identifier-like one (else equal rows are a coincidence)
    distinct = np.array([len(np.unique(hashes[:, i])) for i in range(n_cols)])
    numeric = [pd.api.types.is_numeric_dtype(frame.iloc[:, i]) and not pd.api.types.is_bool_dtype(frame.iloc[:, i])
               for i in range(n_cols)]
    candidates = [c for c in sorted(set(cols)) + [i for i in range(n_cols) if i not in cols]
                  if numeric[c] and distinct[c] > 2 and not (cardinality[c] >= 0.9 and _is_identifier(frame.iloc[:, c]))]
    out = []
    for c in candidates:
        keys = [i for i in range(n_cols) if i != c and cardinality[i] >= 0.5]
        if not keys:
            continue
        with np.errstate(over="ignore"):
            rest = total - weighted[:, c]
        dup = pd.Series(rest).duplicated(keep=False).to_numpy() & ~whole_dup
        if not dup.any():
            continue
        groups = pd.DataFrame({"k": rest[dup], "v": hashes[dup, c]}).groupby("k")["v"].nunique()
        conflicted = groups[groups > 1].index.to_numpy()
        if not len(conflicted):
            continue
        rows = np.isin(rest, conflicted) & dup
        # many near-duplicates mean repeated measurements or padding, not an injected conflict
        if rows.sum() > max(6, 0.05 * n_rows):
            continue
        header = sheet.headers[c]
        out.append(Finding("conflicting_values", f"rows identical in every other field give different values of "
                           f"'{header}' for the same fact", file=sheet.file, sheet=sheet.sheet,
                           columns=[header], rows=_rows(rows)))
        if len(out) >= 3:
            break
    return out


def _is_identifier(col: pd.Series) -> bool:
    """A near-unique column that names rows (codes, ids, an ordered index), not a measurement."""
    if not pd.api.types.is_float_dtype(col):
        return True
    values = col.dropna()
    return bool(values.is_monotonic_increasing or values.is_monotonic_decreasing)


MARKER_WORDS = re.compile(
    r"\b(summary|total|totals|subtotal|grand total|sample|simulated|simulation|synthetic|check|control|"
    r"test row|dummy|placeholder|aggregate|average|mean|forecast|projected|estimate|not an observation|"
    r"non[- ]observation)\b", re.I)


def _marker_row_findings(sheet: SheetData) -> list[Finding]:
    """A text column whose values mark a few rows as summaries, samples, checks... (not observations)."""
    frame = sheet.frame
    n = len(frame)
    if n < 3:
        return []
    out = []
    for i in sheet.text_columns():
        values = sheet.frame.iloc[:, i].astype("string").str.strip()
        counts = values.value_counts(dropna=True)
        if counts.empty or len(counts) > max(12, n // 2):
            continue
        flagged = [v for v in counts.index
                   if MARKER_WORDS.search(re.sub(r"[_\-]+", " ", str(v))) and counts[v] <= max(5, 0.1 * n)]
        if not flagged:
            continue
        mask = values.isin(flagged).fillna(False).to_numpy()
        out.append(Finding("non_observation_rows", f"rows marked {', '.join(map(repr, flagged[:4]))} in column "
                           f"'{sheet.headers[i]}' are not observations and must be excluded", file=sheet.file,
                           sheet=sheet.sheet, columns=[sheet.headers[i]], rows=_rows(mask)))
    return out


UNIT = re.compile(r"[\(\[]\s*(kg|g|mg|t|tons?|km|m|cm|mm|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|%|"
                  r"usd|\$|eur|k|thousands?|millions?|mn|m\$|bn|billions?|x ?1000|x ?1,000|per 1,?000|万元|元|万|"
                  r"yuan|pct|percent|ml|l|lbs?|oz|mi|miles?)\s*[\)\]]|\bin (thousands|millions|billions)\b|"
                  r"_(k|thousands|millions|pct|percent|kg|g|km|mins|hours)$", re.I)


def _unit_findings(sheet: SheetData, cols: list[int], question: str) -> list[Finding]:
    out = []
    for c in sorted(set(cols)):
        m = UNIT.search(str(sheet.headers[c]))
        if m and m.group(0).strip("()[] _").lower() not in (question or "").lower():
            out.append(Finding("unit_label", f"column '{sheet.headers[c]}' is labelled in '{m.group(0).strip()}': "
                               "convert before comparing with the question's quantities", file=sheet.file,
                               sheet=sheet.sheet, columns=[sheet.headers[c]]))
    return out


DECOY_WORDS = re.compile(r"\b(derived|engineered|proxy|decoy|predicted|prediction|estimated|adjusted|planned|"
                         r"target|budget|projected|lag|rolling|feature|score|index|flag|normalized|scaled)\b", re.I)


def _distractor_findings(sheet: SheetData, cols: list[int], terms: list[Term]) -> list[Finding]:
    """Columns that look like the question's field but have another scope."""
    out = []
    bound_names = {norm(sheet.headers[c]) for c in cols}
    for c in sorted(set(cols)):
        want = tokens(sheet.headers[c])
        for j, h in enumerate(sheet.headers):
            if j == c or norm(h) in bound_names:
                continue
            have = tokens(h)
            if want and want < have and len(have - want) <= 3:
                out.append(Finding("distractor_column", f"column '{h}' resembles the question's field "
                                   f"'{sheet.headers[c]}' but has another scope: use '{sheet.headers[c]}'",
                                   file=sheet.file, sheet=sheet.sheet, columns=[sheet.headers[c], h]))
    decoys = [h for j, h in enumerate(sheet.headers) if j not in cols and DECOY_WORDS.search(str(h).replace("_", " "))]
    if len(decoys) >= 2 and cols:
        out.append(Finding("decoy_columns", "columns that look task-related but are not needed by the question: "
                           "exclude them from the analysis", file=sheet.file, sheet=sheet.sheet, columns=decoys[:12]))
    return out


def _rows(mask: np.ndarray) -> list[int]:
    return [int(i) + 1 for i in np.flatnonzero(mask)[:MAX_ROWS_LISTED]]


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen, out = set(), []
    for f in findings:
        key = (f.kind, f.file, f.sheet, tuple(f.columns), f.requirement)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


__all__ = ["check", "GateResult", "Finding", "BLOCKING", "ADVISORY", "DATA_SUFFIXES", "question_terms"]
