"""Downstream workflows (section 5.3, appendix C) and their frozen policies.

Tasks over the four coarse classes of a domain (actions: route to a class, or trusted review):
- selective routing: a wrong route costs W, review costs R, a correct route 0;
- one-step clarification: act now, or buy one permitted class-targeted check (cost c) that
  answers yes exactly when that class is true, then route (yes -> that class; no -> the best
  remaining action); the complete plan names the action for both check outcomes;
- asymmetric-cost routing: a predeclared nonuniform action x class matrix (seed
  tuplebench_asymmetric_costs.csv; off-diagonal entries scaled by the profile, review = R).
A policy is a posterior estimator p(T | release) followed by the Bayes action under the task's
costs (ties broken by a fixed action order). Estimators: the empirical training prior,
regularized logistic regression on the released fields (two strengths), and the native
probability vector when the release has one. The estimator with the lowest validation mean cost
is selected and frozen per system x domain x view x task x cost profile. The oracle-T policy
(evaluator-only) routes the true class.

Plans are integer codes: first * 100 + (yes + 1) * 10 + (no + 1), where actions 0..3 route to the
class at that candidate position, 4 is review and 5 + j buys the check of class j.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.linear_model import LogisticRegression

from ..errors import BadInput
from . import ontology

TASKS = ("selective", "clarification", "asymmetric")
K = 4
REVIEW = 4
LR_STRENGTHS = (1.0,)
EPS = 1e-4


@dataclass(frozen=True)
class CostModel:
    """Action (5: 4 routes + review) x true class (4) costs of one task, plus the check price."""

    task: str
    matrix: np.ndarray
    check: float

    def plan_costs(self, plans: np.ndarray) -> np.ndarray:
        """Cost of each plan under each hypothetical true class (n x 4)."""
        first, yes, no = plans // 100, (plans // 10) % 10 - 1, plans % 10 - 1
        out = np.empty((len(plans), K))
        immediate = first < 5
        out[immediate] = self.matrix[first[immediate]]
        checked = ~immediate
        if checked.any():
            j = first[checked] - 5
            after_no = self.matrix[no[checked]].copy()
            after_yes = self.matrix[yes[checked]]
            truth = np.arange(K)[None, :]
            out[checked] = self.check + np.where(truth == j[:, None], after_yes, after_no)
        return out


def cost_model(task: str, domain: str, profile: dict) -> CostModel:
    for key in ("wrong_route_cost", "review_cost", "check_cost", "asymmetric_scale"):
        if profile.get(key) is None or not np.isfinite(profile[key]):
            raise BadInput(f"cost profile {profile.get('profile')}: field {key} is not specified")
    w, r = profile["wrong_route_cost"], profile["review_cost"]
    if task in ("selective", "clarification"):
        m = np.vstack([w * (1 - np.eye(K)), np.full((1, K), r)])
    elif task == "asymmetric":
        dom = ontology.load()[domain]
        base = ontology.asymmetric_matrix(domain)
        cats = dom.category_names
        m = np.array([[base[(f"route_{a}", t)] * profile["asymmetric_scale"] for t in cats] for a in cats]
                     + [[r] * K])
    else:
        raise BadInput(f"unknown task '{task}'")
    return CostModel(task, m, profile["check_cost"] if task == "clarification" else 0.0)


def bayes_plans(post: np.ndarray, costs: CostModel) -> np.ndarray:
    """The complete plan minimizing expected cost under the posterior (n x 4)."""
    expected = post @ costs.matrix.T  # n x 5 immediate actions
    codes = [np.full(len(post), a * 100) for a in range(5)]
    options = [expected[:, a] for a in range(5)]
    if costs.task == "clarification":
        for j in range(K):
            rest = post.copy()
            rest[:, j] = 0.0
            after_no = rest @ costs.matrix.T
            best_no = after_no.argmin(axis=1)
            options.append(costs.check + after_no[np.arange(len(post)), best_no])
            codes.append((5 + j) * 100 + (j + 1) * 10 + (best_no + 1))
    table = np.column_stack(options)
    pick = _first_argmin(table)
    return np.column_stack(codes)[np.arange(len(post)), pick]


def _first_argmin(table: np.ndarray) -> np.ndarray:
    """argmin with ties (within 1e-12) resolved to the earliest option, deterministically."""
    best = table.min(axis=1, keepdims=True)
    return np.argmax(table <= best + 1e-12, axis=1)


def plan_text(code: int, classes: list[str]) -> str:
    first, yes, no = code // 100, (code // 10) % 10 - 1, code % 10 - 1

    def act(a: int) -> str:
        return "review" if a == REVIEW else f"route:{classes[a]}"
    if first < 5:
        return act(first)
    return f"check:{classes[first - 5]}?yes={act(yes)};no={act(no)}"


# --- release features and posterior estimators ----------------------------------------------------

@dataclass(frozen=True)
class Release:
    """Released fields of n responses: choice index (-1 absent), probabilities (NaN absent),
    confidence (NaN absent)."""

    choice: np.ndarray
    probs: np.ndarray
    conf: np.ndarray

    def take(self, rows) -> "Release":
        return Release(self.choice[rows], self.probs[rows], self.conf[rows])


def release_features(rel: Release) -> np.ndarray:
    onehot = np.zeros((len(rel.choice), K))
    has = rel.choice >= 0
    onehot[np.flatnonzero(has), rel.choice[has]] = 1.0
    conf = np.nan_to_num(rel.conf, nan=0.0)
    c = np.clip(conf, EPS, 1 - EPS)
    conf_feats = np.column_stack([np.isfinite(rel.conf).astype(float), conf, np.where(np.isfinite(rel.conf), np.log(c / (1 - c)), 0.0)])
    logp = np.where(np.isfinite(rel.probs), np.log(np.nan_to_num(rel.probs, nan=0.0) + EPS), 0.0)
    present = np.isfinite(rel.probs).astype(float)
    return np.column_stack([onehot, conf_feats, logp, present])


@dataclass
class Estimator:
    """A posterior estimator. Logistic models keep standardized coefficients and are applied in
    numpy (a softmax), so scoring large codebooks needs no per-call scikit-learn overhead."""

    name: str
    prior: np.ndarray
    coef: np.ndarray | None = None       # classes x features (on standardized features)
    intercept: np.ndarray | None = None
    classes: np.ndarray | None = None
    center: np.ndarray | None = None
    scale: np.ndarray | None = None

    def posterior(self, rel: Release) -> np.ndarray:
        n = len(rel.choice)
        if self.name == "prior":
            return np.tile(self.prior, (n, 1))
        if self.name == "native":
            p = np.nan_to_num(rel.probs, nan=0.0)
            total = p.sum(axis=1, keepdims=True)
            return np.where(total > 0, p / np.where(total > 0, total, 1), self.prior)
        z = ((release_features(rel) - self.center) / self.scale) @ self.coef.T + self.intercept
        if z.shape[1] == 1:  # binary logistic regression: one column of log-odds
            z = np.column_stack([np.zeros(n), z[:, 0]])
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out = np.zeros((n, K))
        out[:, self.classes] = e / e.sum(axis=1, keepdims=True)
        return out


def fit_estimators(rel_train: Release, t_train: np.ndarray, seed: int, has_probs: bool) -> list[Estimator]:
    prior = np.bincount(t_train, minlength=K).astype(float) + 1.0
    prior /= prior.sum()
    out = [Estimator("prior", prior)]
    feats = release_features(rel_train)
    center, scale = feats.mean(axis=0), feats.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    informative = bool((feats.std(axis=0) > 1e-9).any())
    if informative and len(np.unique(t_train)) > 1:
        z = (feats - center) / scale
        for strength in LR_STRENGTHS:
            model = LogisticRegression(C=strength, max_iter=1000, tol=1e-4, random_state=seed).fit(z, t_train)
            out.append(Estimator(f"logistic_C{strength:g}", prior, model.coef_, model.intercept_,
                                 model.classes_, center, scale))
    if has_probs:
        out.append(Estimator("native", prior))
    return out


@dataclass
class Policy:
    """A frozen workflow: selected estimator + Bayes action under a task's costs."""

    system: str
    domain: str
    view: str
    task: str
    profile: str
    estimator: Estimator
    costs: CostModel
    validation_cost: dict = field(default_factory=dict)

    def plans(self, rel: Release) -> np.ndarray:
        return bayes_plans(self.estimator.posterior(rel), self.costs)


def select_policy(estimators: list[Estimator], costs: CostModel, rel_val: Release, t_val: np.ndarray,
                  posteriors: dict[str, np.ndarray] | None = None, **ids) -> Policy:
    """The estimator whose Bayes policy has the lowest validation mean cost (earliest on ties)."""
    scores = {}
    for est in estimators:
        post = posteriors[est.name] if posteriors is not None else est.posterior(rel_val)
        plans = bayes_plans(post, costs)
        scores[est.name] = float(costs.plan_costs(plans)[np.arange(len(t_val)), t_val].mean())
    best = min(estimators, key=lambda e: (scores[e.name], [x.name for x in estimators].index(e.name)))
    return Policy(estimator=best, costs=costs, validation_cost=scores, **ids)


def plans_for(rel: Release, policies: list[Policy]) -> list[np.ndarray]:
    """Every policy's plans, computing each distinct estimator's posterior once."""
    posts: dict[int, np.ndarray] = {}
    out = []
    for p in policies:
        key = id(p.estimator)
        if key not in posts:
            posts[key] = p.estimator.posterior(rel)
        out.append(bayes_plans(posts[key], p.costs))
    return out


def realized(costs: CostModel, plans: np.ndarray, truth: np.ndarray) -> np.ndarray:
    return costs.plan_costs(plans)[np.arange(len(truth)), truth]


def oracle_costs(costs: CostModel, truth: np.ndarray) -> np.ndarray:
    """Evaluator-only oracle-T: the cheapest action knowing the true class."""
    return costs.matrix[:, truth].min(axis=0)
