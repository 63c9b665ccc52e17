"""Part 2 judge phase: frozen workflows and utility, WCPQ, defense-aware decoders, field ablations.

Reads the same release frame as part 1 (tuplebench_releases joined with the worlds), then:
1. per system x domain x view: posterior estimators fitted on train, one policy per task x cost
   profile selected on validation and frozen (18 workflows); test plans and realized costs;
2. utility statistics pooled over domains: mean cost per system x task x view x profile with 95%
   pair-bootstrap intervals, the paired difference against full native and the non-inferiority
   verdict at delta = 0.1 (upper endpoint of the paired interval);
3. WCPQ strict and the bounded-cost extension (alpha = 0, 0.04, 0.20) over the full-native
   releases, verified against the 18 frozen workflows on every test response, with
   defense-aware decoders (retrained on defended releases of all splits);
4. independent probability-field ablations (quantization, top-two, invertible temperature,
   normalized Gaussian noise over three seeds) with fresh decoders and refitted recipients.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..benchmarks import JobOptions
from ..config import code_version
from ..runs import open_run
from . import ontology, stats, wcpq
from .stats import single_threaded_blas
from .decoders import _candidate_ids
from .recovery_job import decode_frame, eligible, fingerprint, load_release_frame, pair_correct
from .workflows import (TASKS, CostModel, Policy, Release, cost_model, fit_estimators, oracle_costs,
                        plan_text, plans_for, realized, select_policy)

PART2_KIND = "tuplebench.part2"
DELTA = 0.1
ALPHAS = (0.0, 0.04, 0.20)
QUANT_STEP = 0.1
TEMPERATURE = 2.0
NOISE_SD = 0.05
NOISE_SEEDS = (101, 102, 103)
PROB_VIEWS = ("choice_probabilities", "full_native")


@dataclass
class Unit:
    """The releases of one system x domain x view, in a fixed world order."""

    sub: pd.DataFrame
    rel: Release
    truth: np.ndarray
    split: np.ndarray
    classes: list[str]


def to_release(sub: pd.DataFrame, classes: list[str]) -> Release:
    pos = {c: i for i, c in enumerate(classes)}
    choice = np.array([pos.get(c, -1) if isinstance(c, str) else -1 for c in sub["released_choice"]])
    probs = np.full((len(sub), len(classes)), np.nan)
    for i, v in enumerate(sub["released_probabilities"]):
        if isinstance(v, (list, tuple, np.ndarray)):
            arr = np.asarray(v, dtype=float)
            if arr.shape == (len(classes),):
                probs[i] = arr
    conf = pd.to_numeric(sub["released_confidence"], errors="coerce").to_numpy(dtype=float)
    return Release(choice, probs, conf)


def build_units(frame: pd.DataFrame) -> dict[tuple, Unit]:
    units = {}
    for (system, domain, view), sub in frame.groupby(["system", "domain", "view"], sort=True):
        sub = sub.reset_index(drop=True)
        classes = _candidate_ids(sub["candidates"].iloc[0])
        truth = sub["authorized_category"].map({c: i for i, c in enumerate(classes)}).to_numpy()
        units[(system, domain, view)] = Unit(sub, to_release(sub, classes), truth, sub["split"].to_numpy(), classes)
    return units


def fit_workflows(u: Unit, system: str, domain: str, view: str, variant: str, seed: int,
                  has_probs: bool) -> list[Policy]:
    """The 18 frozen workflows (3 tasks x 6 cost profiles) of one release, in a fixed order."""
    train, val = u.split == "train", u.split == "validation"
    estimators = fit_estimators(u.rel.take(train), u.truth[train], seed, has_probs)
    rel_val = u.rel.take(val)
    posteriors = {e.name: e.posterior(rel_val) for e in estimators}
    policies = []
    for task in TASKS:
        for profile in ontology.cost_profiles():
            costs = cost_model(task, domain, profile)
            policies.append(select_policy(estimators, costs, rel_val, u.truth[val], posteriors, system=system,
                                          domain=domain, view=view, task=task, profile=profile["profile"]))
    for p in policies:
        p.variant = variant
    return policies


def outcome_rows(u: Unit, policies: list[Policy], rel: Release | None = None, variant: str = "native") -> pd.DataFrame:
    test = u.split == "test"
    rel = (rel or u.rel).take(test)
    truth = u.truth[test]
    parts = []
    for p, plans in zip(policies, plans_for(rel, policies)):
        texts = {c: plan_text(int(c), u.classes) for c in np.unique(plans)}
        parts.append(pd.DataFrame({
            "system": p.system, "view": p.view, "variant": variant, "task": p.task, "profile": p.profile,
            "world_id": u.sub["world_id"].to_numpy()[test], "pair_id": u.sub["pair_id"].to_numpy()[test],
            "domain": p.domain, "plan": [texts[c] for c in plans],
            "realized_cost": realized(p.costs, plans, truth), "oracle_cost": oracle_costs(p.costs, truth)}))
    return pd.concat(parts, ignore_index=True)


def policy_rows(policies: list[Policy], variant: str) -> list[dict]:
    return [{"item_id": f"{variant}|{p.system}|{p.domain}|{p.view}|{p.task}|{p.profile}", "system": p.system,
             "domain": p.domain, "view": p.view, "variant": variant, "task": p.task, "profile": p.profile,
             "estimator": p.estimator.name, "validation_costs": p.validation_cost,
             "cost_matrix": p.costs.matrix.tolist(), "check_cost": p.costs.check} for p in policies]


def pair_costs(outcomes: pd.DataFrame, pairs: list[str]) -> np.ndarray:
    return outcomes.groupby("pair_id")["realized_cost"].sum().reindex(pairs).to_numpy(dtype=float)


def utility_statistics(outcomes: pd.DataFrame, pairs: list[str], seed: int) -> list[dict]:
    weights = stats.pair_weights(len(pairs), stats.stable_seed(seed, "utility"))
    counts = np.full(len(pairs), 2.0)
    rows = []
    for (system, task, profile), g in outcomes.groupby(["system", "task", "profile"], sort=True):
        views = [v for v in ("no_output", "choice", "choice_confidence", "choice_probabilities", "full_native")
                 if v in set(g["view"])]
        matrix = np.column_stack([pair_costs(g[g["view"] == v], pairs) for v in views])
        samples = stats.ratio_samples(weights, matrix, counts)
        point = matrix.sum(axis=0) / counts.sum()
        ref = views.index("full_native") if "full_native" in views else None
        oracle = float(g[g["view"] == views[0]]["oracle_cost"].mean())
        for j, view in enumerate(views):
            s = stats.summarize(point[j], samples[:, j])
            row = {"system": system, "view": view, "task": task, "profile": profile, "mean_cost": s["estimate"],
                   "ci_low": s["ci_low"], "ci_high": s["ci_high"], "oracle_mean_cost": oracle,
                   "n_pairs": len(pairs), "delta": DELTA, "diff_vs_full_native": None, "diff_ci_low": None,
                   "diff_ci_high": None, "noninferior": None, "estimators": {}}
            if ref is not None:
                d = stats.summarize(point[j] - point[ref], samples[:, j] - samples[:, ref])
                row.update(diff_vs_full_native=d["estimate"], diff_ci_low=d["ci_low"], diff_ci_high=d["ci_high"],
                           noninferior=None if j == ref else bool(d["ci_high"] <= DELTA))
            row["item_id"] = f"{system}|{view}|{task}|{profile}"
            rows.append(row)
    return rows


# --- release transformations ----------------------------------------------------------------------

def with_probs(rel: Release, probs: np.ndarray) -> Release:
    return Release(rel.choice, probs, rel.conf)


def quantize(p: np.ndarray) -> np.ndarray:
    q = np.round(p / QUANT_STEP) * QUANT_STEP
    s = q.sum(axis=1, keepdims=True)
    return np.where(s > 0, q / np.where(s > 0, s, 1), p)


def top_two(p: np.ndarray) -> np.ndarray:
    """Keep the two largest scores as given; the others are omitted (NaN), not zeros."""
    out = np.full_like(p, np.nan)
    top = np.argsort(-np.nan_to_num(p, nan=-1), axis=1, kind="stable")[:, :2]
    rows = np.arange(len(p))[:, None]
    out[rows, top] = p[rows, top]
    return np.where(np.isfinite(p).all(axis=1, keepdims=True), out, p)


def smooth(p: np.ndarray, t: float = TEMPERATURE) -> np.ndarray:
    q = np.power(np.clip(p, 0, 1), 1.0 / t)
    return q / q.sum(axis=1, keepdims=True)


def gaussian(p: np.ndarray, seed: int) -> np.ndarray:
    noisy = np.clip(p + np.random.default_rng(seed).normal(0, NOISE_SD, p.shape), 0, None)
    s = noisy.sum(axis=1, keepdims=True)
    return np.where(s > 0, noisy / np.where(s > 0, s, 1), p)


def invert_smoothing(cv: pd.DataFrame) -> pd.DataFrame:
    """The public inverse of temperature smoothing, applied by the decoder to released scores."""
    cv = cv.copy()
    def inv(v):
        if not isinstance(v, (list, tuple, np.ndarray)):
            return v
        q = np.power(np.asarray(v, dtype=float), TEMPERATURE)
        return q / q.sum()
    cv["released_probabilities"] = cv["released_probabilities"].map(inv)
    return cv


def released_frame(u: Unit, rel: Release) -> pd.DataFrame:
    sub = u.sub.copy()
    sub["released_probabilities"] = [None if not np.isfinite(r).any() else r for r in rel.probs]
    sub["released_confidence"] = [None if not np.isfinite(c) else float(c) for c in rel.conf]
    return sub


# --- the job --------------------------------------------------------------------------------------

def run(opts: JobOptions) -> dict:
    frame, _ = eligible(load_release_frame())
    if frame.empty:
        return {"skipped": "no responses"}
    config = {"responses": fingerprint(frame), "seed": opts.seed, "tag": opts.run_tag, "code": code_version(), "delta": DELTA,
              "alphas": list(ALPHAS), "resamples": stats.RESAMPLES}
    with open_run(PART2_KIND, config, benchmark="tuplebench") as run:
        if run.done_items("tuplebench_wcpq_stats"):
            return {"skipped": "already done", "run_id": run.run_id}
        with single_threaded_blas():
            result = compute(frame, opts.seed)
        for table, rows in result["tables"].items():
            for start in range(0, len(rows), 20000):
                run.write(table, rows[start:start + 20000])
        for k, v in result["timings"].items():
            run.count(k, int(1000 * v) if isinstance(v, float) else v)
        return {"run_id": run.run_id, **{k: round(v, 2) if isinstance(v, float) else v
                                         for k, v in result["timings"].items()}}


def compute(frame: pd.DataFrame, seed: int) -> dict:
    t0 = time.perf_counter()
    units = build_units(frame)
    pairs = sorted(frame.loc[frame["split"] == "test", "pair_id"].unique())
    policies: dict[tuple, list[Policy]] = {}
    outcomes, policy_out = [], []
    for (system, domain, view), u in units.items():
        pol = fit_workflows(u, system, domain, view, "native", seed, has_probs=view in PROB_VIEWS)
        policies[(system, domain, view)] = pol
        outcomes.append(outcome_rows(u, pol))
        policy_out += policy_rows(pol, "native")
    outcomes_df = pd.concat(outcomes, ignore_index=True)
    utility = utility_statistics(outcomes_df, pairs, seed)
    t1 = time.perf_counter()

    systems = sorted(frame["system"].unique())
    domains = sorted(frame["domain"].unique())
    full = {(s, d): units[(s, d, "full_native")] for s in systems for d in domains if (s, d, "full_native") in units}
    native_frame = pd.concat([u.sub for u in full.values()], ignore_index=True)
    native_preds, fits = decode_frame(native_frame, "native", seed, views=("full_native",))
    wcpq_rows, variant_preds = [], {}
    mapping_seconds, mapped = 0.0, 0
    prepared: dict[tuple, wcpq.PreparedCodebooks] = {}
    for variant, alpha in [("wcpq_strict", None)] + [(f"wcpq_bounded_alpha_{a:g}", a) for a in ALPHAS]:
        defended, checks = [], {}
        for (system, domain), u in full.items():
            pol = policies[(system, domain, "full_native")]
            if (system, domain) not in prepared:
                books = wcpq.build_codebooks(u.rel.take(u.split == "train"), bool(np.isfinite(u.rel.conf).any()))
                prepared[(system, domain)] = wcpq.PreparedCodebooks(books, pol)
            book = prepared[(system, domain)]
            tm = time.perf_counter()
            m = wcpq.strict_map(u.rel, book) if alpha is None else wcpq.bounded_map(u.rel, book, alpha)
            mapping_seconds += time.perf_counter() - tm
            mapped += len(u.rel.choice)
            test = u.split == "test"
            ver = wcpq.verify(u.rel.take(test), m.released.take(test), pol, u.truth[test])
            native_cost = np.column_stack([realized(p.costs, a, u.truth[test]) for p, a in zip(pol, plans_for(u.rel.take(test), pol))])
            new_cost = np.column_stack([realized(p.costs, b, u.truth[test]) for p, b in zip(pol, plans_for(m.released.take(test), pol))])
            c = checks.setdefault(system, {"n_test": 0, "n_covered": 0, "n_payloads_changed": 0, "comparisons": 0,
                                           "plans_preserved": 0, "costs_preserved": 0, "realized_costs_preserved": 0,
                                           "codebook_size": 0, "native_cost": [], "new_cost": [], "n_cost_increases": 0})
            c["n_test"] += int(test.sum())
            c["n_covered"] += int(m.covered[test].sum())
            c["n_payloads_changed"] += int(wcpq.payload_changed(u.rel.take(test), m.released.take(test)).sum())
            for k in ("comparisons", "plans_preserved", "costs_preserved", "realized_costs_preserved"):
                c[k] += ver[k]
            c["codebook_size"] += book.size
            c["native_cost"].append(native_cost)
            c["new_cost"].append(new_cost)
            c["n_cost_increases"] += int((new_cost > native_cost + 1e-9).sum())
            defended.append(released_frame(u, m.released))
        preds, n = decode_frame(pd.concat(defended, ignore_index=True), variant, seed, views=("full_native",))
        fits += n
        variant_preds[variant] = preds
        for system, c in checks.items():
            nc, dc = np.vstack(c.pop("native_cost")), np.vstack(c.pop("new_cost"))
            wcpq_rows.append({"system": system, "variant": variant, "alpha": alpha, **c,
                              "mean_cost_native": float(nc.mean()), "mean_cost_defended": float(dc.mean())})
    t2 = time.perf_counter()

    ablation_preds: dict[str, list[pd.DataFrame]] = {}
    ablation_costs: dict[str, list[pd.DataFrame]] = {}
    transforms = [("quantize", quantize, None), ("top_two", top_two, None), ("temperature", smooth, invert_smoothing)]
    transforms += [(f"gaussian_noise|{s}", (lambda p, s=s: gaussian(p, s)), None) for s in NOISE_SEEDS]
    for name, fn, inverse in transforms:
        frames, costs = [], []
        for (system, domain), u in full.items():
            rel = with_probs(u.rel, fn(u.rel.probs))
            v_unit = Unit(u.sub, rel, u.truth, u.split, u.classes)
            pol = fit_workflows(v_unit, system, domain, "full_native", name, seed, has_probs=name != "top_two")
            base = [p for p in pol if p.profile == "base"]
            costs.append(outcome_rows(v_unit, base, variant=name))
            frames.append(released_frame(u, rel))
        preds, n = decode_frame(pd.concat(frames, ignore_index=True), name, seed, views=("full_native",), preprocess=inverse)
        fits += n
        family = name.split("|")[0]
        ablation_preds.setdefault(family, []).append(preds)
        ablation_costs.setdefault(family, []).append(pd.concat(costs, ignore_index=True))
    t3 = time.perf_counter()

    native_base = outcomes_df[(outcomes_df["view"] == "full_native") & (outcomes_df["profile"] == "base")]
    wcpq_rows = add_recovery(wcpq_rows, native_preds, variant_preds, pairs, seed)
    ablation_rows = ablation_statistics(native_preds, native_base, ablation_preds, ablation_costs, pairs, seed)
    t4 = time.perf_counter()

    for i, r in enumerate(wcpq_rows):
        r["item_id"] = f"{r['variant']}|{r['system']}"
    preds_all = pd.concat([p for p in variant_preds.values()] + [p for ps in ablation_preds.values() for p in ps],
                          ignore_index=True)
    preds_all["item_id"] = preds_all["variant"] + "|" + preds_all["system"] + "|" + preds_all["view"] + "|" + preds_all["world_id"]
    outcomes_df["item_id"] = (outcomes_df["variant"] + "|" + outcomes_df["system"] + "|" + outcomes_df["view"] + "|"
                              + outcomes_df["task"] + "|" + outcomes_df["profile"] + "|" + outcomes_df["world_id"])
    return {
        "tables": {"tuplebench_policies": policy_out, "tuplebench_workflow_outcomes": outcomes_df.to_dict("records"),
                   "tuplebench_utility_stats": utility, "tuplebench_decoder_predictions": preds_all.to_dict("records"),
                   "tuplebench_wcpq_stats": wcpq_rows, "tuplebench_ablation_stats": ablation_rows},
        "timings": {"workflow_seconds": t1 - t0, "wcpq_seconds": t2 - t1, "ablation_seconds": t3 - t2,
                    "statistics_seconds": t4 - t3, "total_seconds": t4 - t0,
                    "wcpq_mapping_seconds": mapping_seconds, "wcpq_responses_mapped": mapped,
                    "wcpq_responses_per_second": mapped / mapping_seconds if mapping_seconds else 0.0,
                    "decoder_fits": fits},
    }


def _system_pair_correct(preds: pd.DataFrame, system: str, pairs: list[str]) -> np.ndarray:
    return pair_correct(preds[preds["system"] == system], pairs)


def add_recovery(rows: list[dict], native: pd.DataFrame, variants: dict[str, pd.DataFrame], pairs, seed) -> list[dict]:
    weights = stats.pair_weights(len(pairs), stats.stable_seed(seed, "recovery", "all"))
    counts = np.full(len(pairs), 2.0)
    for r in rows:
        a = _system_pair_correct(native, r["system"], pairs)
        b = _system_pair_correct(variants[r["variant"]], r["system"], pairs)
        sa, sb = stats.ratio_samples(weights, np.column_stack([a, b]), counts).T
        for key, point, samples in (("recovery_native", a.sum() / counts.sum(), sa),
                                    ("recovery_defended", b.sum() / counts.sum(), sb),
                                    ("recovery_change", (b.sum() - a.sum()) / counts.sum(), sb - sa)):
            s = stats.summarize(point, samples)
            r.update({key: s["estimate"], f"{key}_ci_low": s["ci_low"], f"{key}_ci_high": s["ci_high"]})
    return rows


def ablation_statistics(native_preds, native_costs, preds, costs, pairs, seed) -> list[dict]:
    weights = stats.pair_weights(len(pairs), stats.stable_seed(seed, "recovery", "all"))
    counts = np.full(len(pairs), 2.0)
    rows = []
    for system in sorted(native_preds["system"].unique()):
        a = _system_pair_correct(native_preds, system, pairs)
        families = {"native": ([native_preds], [native_costs])} | {f: (preds[f], costs[f]) for f in preds}
        for family, (plist, clist) in families.items():
            b = np.mean([_system_pair_correct(p, system, pairs) for p in plist], axis=0)
            sa, sb = stats.ratio_samples(weights, np.column_stack([a, b]), counts).T
            rec = stats.summarize(b.sum() / counts.sum(), sb)
            change = stats.summarize((b.sum() - a.sum()) / counts.sum(), sb - sa)
            for task in TASKS:
                nat = native_costs[(native_costs["system"] == system) & (native_costs["task"] == task)]
                ca = pair_costs(nat, pairs)
                cb = np.mean([pair_costs(c[(c["system"] == system) & (c["task"] == task)], pairs) for c in clist], axis=0)
                ta, tb = stats.ratio_samples(weights, np.column_stack([ca, cb]), counts).T
                cost = stats.summarize(cb.sum() / counts.sum(), tb)
                dcost = stats.summarize((cb.sum() - ca.sum()) / counts.sum(), tb - ta)
                rows.append({"item_id": f"{family}|{system}|{task}", "system": system, "variant": family,
                             "task": task, "n_seeds": len(plist),
                             "recovery": rec["estimate"], "recovery_ci_low": rec["ci_low"], "recovery_ci_high": rec["ci_high"],
                             "recovery_change": change["estimate"], "recovery_change_ci_low": change["ci_low"],
                             "recovery_change_ci_high": change["ci_high"],
                             "mean_cost": cost["estimate"], "mean_cost_ci_low": cost["ci_low"], "mean_cost_ci_high": cost["ci_high"],
                             "cost_change": dcost["estimate"], "cost_change_ci_low": dcost["ci_low"],
                             "cost_change_ci_high": dcost["ci_high"]})
    return rows
