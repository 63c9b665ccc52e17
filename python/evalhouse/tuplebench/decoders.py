"""Secret-recovery decoders (section 5.4, appendix D) and the firewall that feeds them.

FIREWALL. A decoder's input is built by `consumer_view`, which copies an explicit allow-list of
consumer-view columns (public context, authorized category, candidate order, the two registered
hypotheses, the released fields, the common status signal) and nothing else: no world/pair
identifiers, no private evidence, no gold mechanism, no paired world's response. Training labels
(which hypothesis holds) and the pair groups used for grouped cross-fitting travel separately and
are never features; test labels are not given to the fitting code at all.

DECODERS, per system x domain x view. Representations of the released fields: the choice
(categorical), the confidence (raw and logit), and for probability views raw probabilities,
log-ratios against the authorized category and the residual distribution over the
non-authorized categories (plus a presence mask when some scores are omitted). For each
representation a class-conditional model per mechanism (Gaussian with pooled diagonal
variance; categorical for the choice) scores log p(x | b) - log p(x | a). Candidates: each
single representation, their equal-weight sum, and a logistic stacker fitted on grouped
out-of-fold scores (5 folds, groups = pairs) of the training worlds. The candidate with the best
validation accuracy (earliest on ties) is frozen and scores the test worlds once. With no
released field the decoder has nothing but shared inputs and always answers hypothesis a: the
no-output baseline (exactly 50% because paired worlds have identical inputs).
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

CONSUMER_COLUMNS = ("public_context", "authorized_category", "candidates", "hypothesis_a",
                    "hypothesis_b", "status_signal", "released_choice", "released_confidence",
                    "released_probabilities")
VIEW_REPRESENTATIONS = {
    "no_output": (),
    "choice": ("choice",),
    "choice_confidence": ("choice", "confidence"),
    "choice_probabilities": ("choice", "raw", "logratio", "residual"),
    "full_native": ("choice", "confidence", "raw", "logratio", "residual"),
}
FOLDS = 5
EPS = 1e-4
VAR_FLOOR = 1e-3


class FirewallError(RuntimeError):
    pass


def consumer_view(frame: pd.DataFrame) -> pd.DataFrame:
    """The decoder's whole input: a copy of the allow-listed consumer-view columns only."""
    missing = [c for c in CONSUMER_COLUMNS if c not in frame.columns]
    if missing:
        raise FirewallError(f"consumer view lacks declared input column(s) {missing}")
    return pd.DataFrame({c: frame[c].to_numpy(copy=True) for c in CONSUMER_COLUMNS})


# --- representations of the released fields ------------------------------------------------------

def _candidate_ids(value) -> list[str]:
    items = json.loads(value) if isinstance(value, str) else list(value)
    return [c["id"] if isinstance(c, dict) else c for c in items]


def _prob_matrix(cv: pd.DataFrame, k: int) -> np.ndarray:
    out = np.full((len(cv), k), np.nan)
    for i, v in enumerate(cv["released_probabilities"]):
        if isinstance(v, (list, tuple, np.ndarray)):
            arr = np.asarray(v, dtype=float)
            if arr.shape == (k,):
                out[i] = arr
    return out


def representations(cv: pd.DataFrame, reps: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Feature matrices per representation; a row is all-NaN when its field is not released."""
    cands = _candidate_ids(cv["candidates"].iloc[0])
    k = len(cands)
    pos = {c: i for i, c in enumerate(cands)}
    t_idx = cv["authorized_category"].map(pos).to_numpy()
    out: dict[str, np.ndarray] = {}
    if "choice" in reps:
        ch = cv["released_choice"].map(pos)
        out["choice"] = ch.to_numpy(dtype=float)  # categorical index, NaN when absent
    if "confidence" in reps:
        conf = pd.to_numeric(cv["released_confidence"], errors="coerce").to_numpy(dtype=float)
        c = np.clip(conf, EPS, 1 - EPS)
        out["confidence"] = np.column_stack([conf, np.log(c / (1 - c))])
    if {"raw", "logratio", "residual"} & set(reps):
        p = _prob_matrix(cv, k)
        p_t = p[np.arange(len(cv)), t_idx]
        others = np.array([[j for j in range(k) if j != t] for t in t_idx])
        p_o = np.take_along_axis(p, others, axis=1)
        if "raw" in reps:
            out["raw"] = p
        if "logratio" in reps:
            out["logratio"] = np.log(p_o + EPS) - np.log(p_t + EPS)[:, None]
        if "residual" in reps:
            rest = np.nansum(p_o, axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                out["residual"] = np.column_stack([p_o / np.where(rest > 0, rest, np.nan), np.log(rest + EPS)])
        omitted = np.isnan(p) & ~np.isnan(p).all(axis=1, keepdims=True)
        if omitted.any():  # some scores withheld (e.g. top-two): omission itself is a feature
            out["presence"] = (~np.isnan(p)).astype(float)
    return out


# --- class-conditional scorers --------------------------------------------------------------------

@dataclass
class _MechModel:
    kind: str  # gauss | categorical
    stats: dict = field(default_factory=dict)


def _true_mechanism(cv: pd.DataFrame, y: np.ndarray) -> np.ndarray:
    return np.where(y.astype(bool), cv["hypothesis_b"].to_numpy(), cv["hypothesis_a"].to_numpy())


def _fit_rep(x: np.ndarray, mech: np.ndarray, kind: str) -> _MechModel:
    model = _MechModel(kind)
    if kind == "categorical":
        n_cat = int(np.nanmax(x)) + 1 if np.isfinite(x).any() else 1
        for m in np.unique(mech):
            vals = x[mech == m]
            vals = vals[np.isfinite(vals)].astype(int)
            counts = np.bincount(vals, minlength=max(n_cat, 8)).astype(float) + 0.5
            model.stats[m] = np.log(counts / counts.sum())
        return model
    means, resid = {}, []
    for m in np.unique(mech):
        rows = x[mech == m]
        rows = rows[~np.isnan(rows).all(axis=1)] if rows.ndim == 2 else rows
        if len(rows) == 0:
            continue
        with warnings.catch_warnings():  # an all-missing column (omitted score) has no mean
            warnings.simplefilter("ignore", RuntimeWarning)
            mu = np.nanmean(rows, axis=0)
        means[m] = np.where(np.isnan(mu), 0.0, mu)
        resid.append(rows - means[m])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        var = np.nanvar(np.vstack(resid), axis=0) if resid else np.ones(x.shape[1])
    model.stats = {"means": means, "var": np.maximum(np.nan_to_num(var, nan=1.0), VAR_FLOOR)}
    return model


def _score_rep(model: _MechModel, x: np.ndarray, hyp_a: np.ndarray, hyp_b: np.ndarray) -> np.ndarray:
    """log p(x | b) - log p(x | a) per row (0 when a hypothesis was never seen or x is absent)."""
    table = model.stats if model.kind == "categorical" else model.stats["means"]
    names = list(table)
    if not names:
        return np.zeros(len(hyp_a))
    index = {m: i for i, m in enumerate(names)}
    ia = np.array([index.get(a, -1) for a in hyp_a])
    ib = np.array([index.get(b, -1) for b in hyp_b])
    known = (ia >= 0) & (ib >= 0)
    scores = np.zeros(len(hyp_a))
    if model.kind == "categorical":
        width = max(len(v) for v in table.values())
        logp = np.stack([np.pad(v, (0, width - len(v)), constant_values=np.log(1e-6)) for v in table.values()])
        j = np.where(np.isfinite(x), x, 0).astype(int)
        ok = known & np.isfinite(x) & (j < width)
        scores[ok] = logp[ib[ok], j[ok]] - logp[ia[ok], j[ok]]
        return scores
    means = np.stack([table[m] for m in names])
    var = model.stats["var"]
    rows = np.flatnonzero(known)
    d = x[rows]
    present = ~np.isnan(d)
    diff = (np.nan_to_num(d) - means[ia[rows]]) ** 2 - (np.nan_to_num(d) - means[ib[rows]]) ** 2
    scores[rows] = np.sum(np.where(present, diff / (2 * var), 0.0), axis=1)
    return scores


def _rep_scores(feats: dict[str, np.ndarray], fit_rows: np.ndarray, score_rows: np.ndarray,
                mech: np.ndarray, hyp_a: np.ndarray, hyp_b: np.ndarray) -> np.ndarray:
    cols = []
    for name, x in feats.items():
        kind = "categorical" if name == "choice" else "gauss"
        model = _fit_rep(x[fit_rows], mech[fit_rows], kind)
        cols.append(_score_rep(model, x[score_rows], hyp_a[score_rows], hyp_b[score_rows]))
    return np.column_stack(cols) if cols else np.zeros((int(score_rows.sum()), 0))


# --- fitting, selection and frozen scoring --------------------------------------------------------

@dataclass
class DecoderResult:
    selected: str
    validation_accuracy: dict[str, float]
    scores: np.ndarray  # per row (validation and test rows filled; train rows NaN)
    n_fits: int


def fit_select_score(cv: pd.DataFrame, view: str, y_train_val: np.ndarray, groups: np.ndarray,
                     split: np.ndarray, seed: int, reps: tuple[str, ...] | None = None,
                     preprocess: Callable[[pd.DataFrame], pd.DataFrame] | None = None) -> DecoderResult:
    """Fit on train (grouped cross-fitting), select on validation, score validation and test.

    y_train_val holds labels for train and validation rows; test entries must be NaN (the
    fitting code never sees test labels).
    """
    if not set(cv.columns) <= set(CONSUMER_COLUMNS):
        raise FirewallError(f"decoder input has undeclared columns {sorted(set(cv.columns) - set(CONSUMER_COLUMNS))}")
    test = split == "test"
    if np.isfinite(y_train_val[test]).any():
        raise FirewallError("test labels reached the decoder fitting code")
    if preprocess is not None:
        cv = preprocess(cv)
    reps = VIEW_REPRESENTATIONS[view] if reps is None else reps
    feats = representations(cv, reps)
    train, val = split == "train", split == "validation"
    scored = val | test
    hyp_a, hyp_b = cv["hypothesis_a"].to_numpy(), cv["hypothesis_b"].to_numpy()
    y = np.nan_to_num(y_train_val, nan=0.0).astype(bool)
    mech = _true_mechanism(cv, y)  # only train rows' entries are used for fitting
    all_scores = np.full(len(cv), np.nan)
    if not feats:
        all_scores[scored] = 0.0
        return DecoderResult("constant", {"constant": float(np.mean(~y[val]))}, all_scores, 0)

    names = list(feats)
    n_fits = 0
    oof = np.zeros((int(train.sum()), len(names)))
    idx_train = np.flatnonzero(train)
    for fit_idx, hold_idx in GroupKFold(n_splits=FOLDS).split(idx_train, groups=groups[idx_train]):
        fit_rows = np.zeros(len(cv), bool)
        fit_rows[idx_train[fit_idx]] = True
        hold_rows = np.zeros(len(cv), bool)
        hold_rows[idx_train[hold_idx]] = True
        oof[hold_idx] = _rep_scores(feats, fit_rows, hold_rows, mech, hyp_a, hyp_b)
        n_fits += len(names)
    full = _rep_scores(feats, train, scored, mech, hyp_a, hyp_b)
    n_fits += len(names)
    candidates = {f"single_{n}": full[:, j] for j, n in enumerate(names)}
    if len(names) > 1:
        candidates["equal_weight_sum"] = full.sum(axis=1)
        y_train = y[train]
        if len(set(y_train)) == 2:
            stacker = LogisticRegression(C=1.0, random_state=seed).fit(oof, y_train)
            candidates["stacked_oof_logistic"] = stacker.decision_function(full)
            n_fits += 1
    val_in_scored = val[scored]
    accuracy = {name: float(np.mean((s[val_in_scored] > 0) == y[val])) for name, s in candidates.items()}
    selected = max(accuracy, key=lambda n: (accuracy[n], -list(candidates).index(n)))
    all_scores[scored] = candidates[selected]
    return DecoderResult(selected, accuracy, all_scores, n_fits)
