"""Part 1 judge phase: decoders for every system x domain x view, then recovery statistics.

Reads the tuplebench_releases / tuplebench_worlds / tuplebench_responses marts once, releases the
warehouse, fits every decoder (decoders.fit_select_score behind the consumer-view firewall),
writes the frozen validation/test predictions and the bootstrap statistics to the landing zone.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..benchmarks import JobOptions
from ..config import code_version
from ..runs import open_run
from . import stats
from .stats import single_threaded_blas
from .decoders import FOLDS, VIEW_REPRESENTATIONS, consumer_view, fit_select_score

DECODE_KIND = "tuplebench.decode"
VIEWS = tuple(VIEW_REPRESENTATIONS)


def load_release_frame() -> pd.DataFrame:
    from ..warehouse import query_df
    return query_df("""
        select r.system, r.world_id, r.view, r.status_signal, r.released_choice,
               r.released_confidence, r.released_probabilities,
               w.pair_id, w.domain, w.split, w.public_context, w.coarse_category as authorized_category,
               w.candidates, w.hypothesis_a, w.hypothesis_b, w.mechanism_is_b,
               s.choice_correct, s.response_run_id
        from tuplebench_releases r
        join tuplebench_worlds w using (world_id)
        join tuplebench_responses s using (system, world_id)
        order by r.system, w.domain, w.pair_id, w.world_index, r.view_order""")


def eligible(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Systems answering enough worlds for grouped cross-fitting, selection and a test score in
    every domain (a smoke run with --limit may not); the others are skipped and named."""
    keep, skipped = [], []
    n_domains = frame["domain"].nunique()
    for system, g in frame.groupby("system", sort=True):
        pairs = g.drop_duplicates("pair_id").groupby(["domain", "split"]).size()
        ok = all(pairs.get((d, "train"), 0) >= FOLDS and pairs.get((d, "validation"), 0) >= 1
                 and pairs.get((d, "test"), 0) >= 1 for d in frame["domain"].unique())
        complete = g.groupby("pair_id")["world_id"].nunique().eq(2).all() and g["domain"].nunique() == n_domains
        (keep if ok and complete else skipped).append(system)
    return frame[frame["system"].isin(keep)], skipped


def decode_frame(frame: pd.DataFrame, variant: str, seed: int, preprocess=None,
                 views: tuple[str, ...] = VIEWS) -> tuple[pd.DataFrame, int]:
    """Frozen decoder predictions on validation and test worlds for every system x domain x view."""
    out, n_fits = [], 0
    for (system, domain, view), sub in frame[frame["view"].isin(views)].groupby(["system", "domain", "view"], sort=True):
        sub = sub.reset_index(drop=True)
        split = sub["split"].to_numpy()
        y = np.array(sub["mechanism_is_b"], dtype=float)
        y[split == "test"] = np.nan  # test labels never reach the fitting code
        result = fit_select_score(consumer_view(sub), view, y, sub["pair_id"].to_numpy(), split, seed,
                                  preprocess=preprocess)
        n_fits += result.n_fits
        scored = split != "train"
        pred_b = result.scores[scored] > 0
        truth = sub["mechanism_is_b"].to_numpy()[scored].astype(bool)
        out.append(pd.DataFrame({
            "variant": variant, "system": system, "domain": domain, "view": view,
            "world_id": sub["world_id"].to_numpy()[scored], "pair_id": sub["pair_id"].to_numpy()[scored],
            "split": split[scored], "decoder": result.selected, "score": result.scores[scored],
            "predicted_b": pred_b, "correct": pred_b == truth}))
    return (pd.concat(out, ignore_index=True) if out else pd.DataFrame()), n_fits


def test_pairs(frame: pd.DataFrame) -> dict[str, list[str]]:
    test = frame[frame["split"] == "test"].drop_duplicates("pair_id")
    pairs = {d: sorted(g["pair_id"]) for d, g in test.groupby("domain")}
    pairs["all"] = sorted(test["pair_id"])
    return pairs


def pair_correct(preds: pd.DataFrame, pairs: list[str]) -> np.ndarray:
    """Correct worlds per pair (0, 1 or 2), in `pairs` order."""
    counts = preds[preds["split"] == "test"].groupby("pair_id")["correct"].sum()
    return counts.reindex(pairs).fillna(0).to_numpy(dtype=float)


def recovery_statistics(preds: pd.DataFrame, frame: pd.DataFrame, seed: int) -> list[dict]:
    """Recovery, gains over no output and over choice, and the both-worlds-correct subset."""
    rows = []
    pairs_by_domain = test_pairs(frame)
    coarse = frame[(frame["view"] == "full_native") & (frame["split"] == "test")]
    both_correct = coarse.groupby(["system", "pair_id"])["choice_correct"].all()
    for domain, pairs in pairs_by_domain.items():
        weights = stats.pair_weights(len(pairs), stats.stable_seed(seed, "recovery", domain))
        counts = np.full(len(pairs), 2.0)
        scope = preds if domain == "all" else preds[preds["domain"] == domain]
        for (variant, system), group in scope.groupby(["variant", "system"], sort=True):
            views = [v for v in VIEWS if v in set(group["view"])]
            matrix = np.column_stack([pair_correct(group[group["view"] == v], pairs) for v in views])
            samples = stats.ratio_samples(weights, matrix, counts)
            point = matrix.sum(axis=0) / counts.sum()
            decoders = group.drop_duplicates("view").set_index("view")["decoder"].to_dict()
            mask = both_correct.reindex([(system, p) for p in pairs]).fillna(False).to_numpy(dtype=bool)
            sub_samples = stats.ratio_samples(weights[:, mask], matrix[mask], counts[mask]) if mask.any() else None
            for j, view in enumerate(views):
                base = {"system": system, "domain": domain, "view": view, "variant": variant,
                        "n_pairs": len(pairs), "n_worlds": 2 * len(pairs), "decoder": decoders.get(view),
                        "bootstrap_resamples": stats.RESAMPLES}
                rows.append({**base, "metric": "recovery", **stats.summarize(point[j], samples[:, j])})
                for ref in ("no_output", "choice"):
                    if ref in views:
                        r = views.index(ref)
                        rows.append({**base, "metric": f"gain_vs_{ref}",
                                     **stats.summarize(point[j] - point[r], samples[:, j] - samples[:, r])})
                if sub_samples is not None:
                    sub_point = matrix[mask, j].sum() / counts[mask].sum()
                    rows.append({**base, "metric": "recovery_both_worlds_correct", "n_pairs": int(mask.sum()),
                                 "n_worlds": int(2 * mask.sum()), **stats.summarize(sub_point, sub_samples[:, j])})
    for r in rows:
        r["item_id"] = f"{r['variant']}|{r['system']}|{r['domain']}|{r['view']}|{r['metric']}"
    return rows


def fingerprint(frame: pd.DataFrame) -> str:
    return stats.stable_seed(*sorted(set(frame["response_run_id"])), len(frame)).__str__()


def run(opts: JobOptions) -> dict:
    frame, skipped = eligible(load_release_frame())
    if skipped:
        print(f"[tuplebench] decoders skip systems without enough answered worlds: {', '.join(skipped)}")
    if frame.empty:
        return {"skipped": "no responses"}
    config = {"responses": fingerprint(frame), "seed": opts.seed, "tag": opts.run_tag, "code": code_version(),
              "resamples": stats.RESAMPLES}
    with open_run(DECODE_KIND, config, benchmark="tuplebench") as run:
        if run.done_items("tuplebench_recovery_stats"):
            return {"skipped": "already done", "run_id": run.run_id}
        t0 = time.perf_counter()
        with single_threaded_blas():
            preds, n_fits = decode_frame(frame, "native", opts.seed)
            t1 = time.perf_counter()
            rows = recovery_statistics(preds, frame, opts.seed)
        t2 = time.perf_counter()
        preds["item_id"] = preds["variant"] + "|" + preds["system"] + "|" + preds["view"] + "|" + preds["world_id"]
        records = preds.to_dict("records")
        for start in range(0, len(records), 5000):
            run.write("tuplebench_decoder_predictions", records[start:start + 5000])
        run.write("tuplebench_recovery_stats", rows)
        run.count("decoder_fits", n_fits)
        summary = {"run_id": run.run_id, "decoder_fits": n_fits, "decode_seconds": round(t1 - t0, 2),
                   "bootstrap_seconds": round(t2 - t1, 2), "stat_rows": len(rows)}
        run.count("decode_ms", int(1000 * (t1 - t0)))
        run.count("bootstrap_ms", int(1000 * (t2 - t1)))
        return summary
