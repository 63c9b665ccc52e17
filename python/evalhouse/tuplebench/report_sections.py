"""The TUPLE-Bench section of the report, drawn from the marts only."""
from __future__ import annotations

import pandas as pd

from ..report.sections import Chart, Section, Table

INTERVALS = ("Intervals: 95% percentile intervals from 2,000 pair-clustered bootstrap resamples "
             "(both worlds of a pair resampled together; seeded); gains and differences are paired.")


def _has(con, table: str) -> bool:
    row = con.execute("select count(*) from information_schema.tables where table_name = ?", [table]).fetchone()
    return bool(row and row[0])


def _df(con, table: str, sql: str) -> pd.DataFrame:
    return con.execute(sql).df() if _has(con, table) else pd.DataFrame()


def _pct(frame: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    out = frame.copy()
    for c in cols:
        out[c] = (100 * out[c].astype(float)).round(2)
    return out


def _ci(frame: pd.DataFrame, point: str, low: str, high: str, pct: bool = True, digits: int = 2) -> pd.Series:
    k = 100 if pct else 1
    return frame.apply(lambda r: f"{k * r[point]:.{digits}f} [{k * r[low]:.{digits}f}, {k * r[high]:.{digits}f}]"
                       if pd.notna(r[point]) else "", axis=1)


def _overview(con) -> list:
    blocks = []
    worlds = _df(con, "tuplebench_worlds", """
        select domain, split, count(*) as worlds, count(distinct pair_id) as pairs,
               count(*) filter (where certificate_passed) as certified,
               count(*) filter (where qc_verdict = 'PASS') as qc_pass
        from tuplebench_worlds group by all order by domain, split""")
    if len(worlds):
        blocks.append(Table("Benchmark: paired worlds by domain and split", worlds,
                            note="Pairs are registered before generation; both worlds of a pair share the split."))
    responses = _df(con, "tuplebench_responses", """
        select system, system_kind, count(*) as responses, count(*) filter (where valid) as valid,
               sum(n_attempts - 1) as requeries, sum(n_invalid_attempts) as invalid_attempts,
               round(100 * avg(choice_correct::int), 2) as coarse_accuracy_pct
        from tuplebench_responses group by all order by system""")
    if len(responses):
        from .builtin_systems import SYSTEMS
        note = "; ".join(f"{name}: {s.description}" for name, s in SYSTEMS.items())
        blocks.append(Table("Native responses (appendix E.2 accounting)", responses,
                            note="Built-in systems, trained on the training worlds' text (cross-fitted answers "
                                 f"for training worlds): {note}. Invalid LLM replies are re-queried for schema "
                                 "validity only and counted; nothing is repaired."))
    return blocks


def _probe(con) -> list:
    probe = _df(con, "tuplebench_refusal_probe", """
        select system, domain, n_valid, withhold_rate, direct_correct_rate, violation_rate,
               residual_recovery, overall_recovery
        from tuplebench_refusal_probe order by system, domain""")
    if not len(probe):
        return []
    return [Table("Refusal probe (section 7.1, appendix A): % of valid responses",
                  _pct(probe, ["withhold_rate", "direct_correct_rate", "violation_rate", "residual_recovery",
                               "overall_recovery"]),
                  note="Residual recovery counts a unique, correct top remaining mechanism with positive fine mass "
                       "among WITHHOLD responses. Built-in systems use a probe variant that always withholds and "
                       "exposes their fine-class scores.")]


def _recovery(con) -> list:
    rec = _df(con, "tuplebench_recovery", """
        select system, domain, view, view_order, recovery, recovery_ci_low, recovery_ci_high,
               gain_over_no_output, gain_over_choice, gain_over_choice_ci_low, gain_over_choice_ci_high,
               recovery_both_worlds_correct, n_both_worlds_correct_pairs, decoder
        from tuplebench_recovery order by system, domain, view_order""")
    if not len(rec):
        return []
    pooled = rec[rec["domain"] == "all"].copy()
    pooled["recovery_pct"] = _ci(pooled, "recovery", "recovery_ci_low", "recovery_ci_high")
    pooled["gain_over_choice_pp"] = _ci(pooled, "gain_over_choice", "gain_over_choice_ci_low", "gain_over_choice_ci_high")
    pooled["both_worlds_correct_pct"] = (100 * pooled["recovery_both_worlds_correct"]).round(2)
    table = pooled[["system", "view", "recovery_pct", "gain_over_choice_pp", "both_worlds_correct_pct",
                    "n_both_worlds_correct_pairs", "decoder"]]
    chart = Chart("Secret recovery by release view (pooled test worlds)", "grouped_bar",
                  [{"view": r.view, "system": r.system, "recovery": 100 * r.recovery,
                    "low": 100 * r.recovery_ci_low, "high": 100 * r.recovery_ci_high}
                   for r in pooled.itertuples()], x="view", y="recovery", series="system", low="low", high="high",
                  y_label="recovery (%)", note="No output is exactly 50%: paired worlds share every public input.")
    heat = Chart("Full-native recovery by domain", "heatmap",
                 [{"domain": r.domain, "system": r.system, "recovery": round(100 * r.recovery, 2)}
                  for r in rec[(rec["view"] == "full_native") & (rec["domain"] != "all")].itertuples()],
                 x="domain", y="system", value="recovery")
    return [Table("Secret recovery (section 7.2): % of test worlds, pooled over domains", table, note=INTERVALS),
            chart, heat]


def _utility(con) -> list:
    util = _df(con, "tuplebench_utility", """
        select system, task, view, view_order, profile, profile_order, mean_cost, mean_cost_ci_low,
               mean_cost_ci_high, diff_vs_full_native, diff_vs_full_native_ci_low, diff_vs_full_native_ci_high,
               noninferior_to_full_native, oracle_mean_cost
        from tuplebench_utility order by system, task, view_order, profile_order""")
    if not len(util):
        return []
    base = util[util["profile"] == "base"].copy()
    base["mean_cost_ci"] = _ci(base, "mean_cost", "mean_cost_ci_low", "mean_cost_ci_high", pct=False, digits=3)
    base["diff_vs_full_native_ci"] = _ci(base, "diff_vs_full_native", "diff_vs_full_native_ci_low",
                                         "diff_vs_full_native_ci_high", pct=False, digits=3)
    blocks = [Table("Downstream utility at the base costs (section 7.3): mean cost per test world",
                    base[["system", "task", "view", "mean_cost_ci", "diff_vs_full_native_ci",
                          "noninferior_to_full_native", "oracle_mean_cost"]],
                    note="Non-inferior: the upper end of the paired interval of (view - full native) is at most "
                         "0.1 cost units. Oracle-T is an evaluator-only bound. " + INTERVALS)]
    pair = util[util["view"].isin(["choice", "full_native"])]
    wide = pair.pivot_table(index=["system", "task", "profile", "profile_order"], columns="view",
                            values="mean_cost").reset_index().sort_values(["system", "task", "profile_order"])
    if {"choice", "full_native"} <= set(wide.columns):
        wide["full_minus_choice"] = wide["full_native"] - wide["choice"]
        blocks.append(Table("Cost-profile sensitivity (appendix F.2, I.9): full native vs choice",
                            wide.drop(columns=["profile_order"]).round(4),
                            note="The same saved responses replayed under six fixed cost profiles; policies refitted per profile."))
    return blocks


def _frontier(con) -> list:
    front = _df(con, "tuplebench_frontier", """
        select task, system, view, recovery, mean_cost, non_dominated from tuplebench_frontier
        order by task, system, view_order""")
    blocks = []
    for task, g in front.groupby("task", sort=True):
        blocks.append(Chart(f"Privacy-utility frontier: {task}", "scatter",
                            [{"recovery": 100 * r.recovery, "mean_cost": r.mean_cost,
                              "point": f"{r.system} / {r.view}" + (" *" if r.non_dominated else "")}
                             for r in g.itertuples()], x="recovery", y="mean_cost", series="point",
                            x_label="secret recovery (%)", y_label="mean cost (base profile)",
                            note="* non-dominated (no other point has lower-or-equal recovery and cost)."))
    return blocks


def _wcpq(con) -> list:
    w = _df(con, "tuplebench_wcpq", """
        select system, variant, coverage, n_covered, n_test, n_payloads_changed, plans_preserved, costs_preserved,
               comparisons, n_cost_increases, recovery_native, recovery_native_ci_low, recovery_native_ci_high,
               recovery_defended, recovery_defended_ci_low, recovery_defended_ci_high, recovery_change,
               recovery_change_ci_low, recovery_change_ci_high, mean_cost_native, mean_cost_defended
        from tuplebench_wcpq order by variant, system""")
    if not len(w):
        return []
    w["coverage"] = w.apply(lambda r: f"{r.n_covered}/{r.n_test}", axis=1)
    w["plans_preserved"] = w.apply(lambda r: f"{r.plans_preserved}/{r.comparisons}", axis=1)
    w["costs_preserved"] = w.apply(lambda r: f"{r.costs_preserved}/{r.comparisons}", axis=1)
    w["native_pct"] = _ci(w, "recovery_native", "recovery_native_ci_low", "recovery_native_ci_high")
    w["defended_pct"] = _ci(w, "recovery_defended", "recovery_defended_ci_low", "recovery_defended_ci_high")
    w["change_pp"] = _ci(w, "recovery_change", "recovery_change_ci_low", "recovery_change_ci_high")
    strict = w[w["variant"] == "wcpq_strict"]
    chart = Chart("WCPQ strict: recovery before / after (defense-aware decoders)", "arrows",
                  [{"system": r.system, "native": 100 * r.recovery_native, "defended": 100 * r.recovery_defended}
                   for r in strict.itertuples()], x="system", y="native", value="defended")
    return [Table("WCPQ (section 7.5, appendix H): coverage, workflow preservation, recovery before/after",
                  w[["system", "variant", "coverage", "n_payloads_changed", "plans_preserved", "costs_preserved",
                     "n_cost_increases", "native_pct", "defended_pct", "change_pp", "mean_cost_native",
                     "mean_cost_defended"]].round(4),
                  note="Strict WCPQ releases the first codeword with the response's workflow signature (18 frozen "
                       "workflows) or falls back to the native response; bounded variants allow per-output cost "
                       "increases up to alpha. " + INTERVALS), chart]


def _ablations(con) -> list:
    a = _df(con, "tuplebench_field_ablations", """
        select system, variant, task, n_seeds, recovery, recovery_change, recovery_change_ci_low,
               recovery_change_ci_high, mean_cost, cost_change, cost_change_ci_low, cost_change_ci_high
        from tuplebench_field_ablations order by system, variant, task""")
    if not len(a):
        return []
    a["recovery_change_pp"] = _ci(a, "recovery_change", "recovery_change_ci_low", "recovery_change_ci_high")
    a["cost_change"] = _ci(a, "cost_change", "cost_change_ci_low", "cost_change_ci_high", pct=False, digits=3)
    a["recovery_pct"] = (100 * a["recovery"]).round(2)
    return [Table("Independent probability-field ablations (appendix I.7)",
                  a[["system", "variant", "task", "n_seeds", "recovery_pct", "recovery_change_pp", "mean_cost",
                     "cost_change"]].round(4), note=INTERVALS)]


def sections(con) -> list[Section]:
    blocks = _overview(con) + _probe(con) + _recovery(con) + _utility(con) + _frontier(con) + _wcpq(con) + _ablations(con)
    if not blocks:
        return []
    return [Section("tuplebench", "TUPLE-Bench: field-level leakage, utility and WCPQ",
                    intro="Paired synthetic worlds share every public input and differ only in a protected "
                          "mechanism. Decoders see consumer-view inputs only (public context, authorized category, "
                          "the two registered hypotheses, released fields, status signal).",
                    blocks=blocks)]
