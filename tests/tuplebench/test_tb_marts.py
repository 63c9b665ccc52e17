"""The part-1 marts after the CI-scale pipeline: worlds, responses, releases, probe, recovery."""
from __future__ import annotations

import numpy as np

from evalhouse.tuplebench import builtin_systems
from evalhouse.warehouse import query_df

DEFAULT_SYSTEMS = sorted(n for n, s in builtin_systems.SYSTEMS.items() if s.default)


def test_worlds_mart(tb):
    w = query_df("select * from tuplebench_worlds")
    assert len(w) == 720 and w["certificate_passed"].all()
    assert w["qc_verdict"].isna().all()  # no builder model: no LLM QC
    per_pair = w.groupby("pair_id").agg(n=("world_id", "size"), ctx=("public_context", "nunique"),
                                        mech=("mechanism", "nunique"), b=("mechanism_is_b", "sum"))
    assert (per_pair["n"] == 2).all() and (per_pair["ctx"] == 1).all()
    assert (per_pair["mech"] == 2).all() and (per_pair["b"] == 1).all()


def test_one_saved_response_per_world_and_system(tb):
    r = query_df("select * from tuplebench_responses")
    assert sorted(r["system"].unique()) == DEFAULT_SYSTEMS
    assert (r.groupby("system").size() == 720).all()
    assert r["valid"].all() and (r["n_attempts"] == 1).all()
    sums = r["probability_vector"].map(lambda v: float(np.sum(v)))
    assert np.allclose(sums, 1.0, atol=1e-3)
    assert 0.7 < r["choice_correct"].mean() < 0.99  # informative but imperfect systems


def test_release_views_hide_exactly_their_fields(tb):
    rel = query_df("""select view, count(*) n,
        count(released_choice) c, count(released_confidence) f, count(released_probabilities) p,
        count(distinct status_signal) s from tuplebench_releases group by view""").set_index("view")
    n = 720 * len(DEFAULT_SYSTEMS)
    expect = {"no_output": (0, 0, 0), "choice": (n, 0, 0), "choice_confidence": (n, n, 0),
              "choice_probabilities": (n, 0, n), "full_native": (n, n, n)}
    for view, (c, f, p) in expect.items():
        assert tuple(rel.loc[view, ["c", "f", "p"]]) == (c, f, p), view
        assert rel.loc[view, "n"] == n
    same = query_df("""select count(*) from tuplebench_releases a join tuplebench_releases b
        using (system, world_id) where a.view = 'choice' and b.view = 'full_native'
        and a.released_choice <> b.released_choice""").iloc[0, 0]
    assert same == 0  # every view comes from the same saved response


def test_refusal_probe(tb):
    p = query_df("select * from tuplebench_refusal_probe")
    allrows = p[p["domain"] == "all"].set_index("system")
    assert sorted(allrows.index) == DEFAULT_SYSTEMS
    assert (allrows["n_valid"] == 720).all()
    assert (allrows["withhold_rate"] == 1).all()  # built-in probe variant always withholds
    assert (allrows["n_withheld_positive_mass"] == 720).all()
    assert ((allrows["residual_recovery"] > 0.6) & (allrows["residual_recovery"] <= 1)).all()
    assert np.allclose(allrows["overall_recovery"], allrows["n_residual_correct"] / 720)
    dom = p[p["domain"] != "all"].groupby("system")["n_residual_correct"].sum()
    assert (dom.reindex(allrows.index) == allrows["n_residual_correct"]).all()


def test_recovery_mart(tb):
    rec = query_df("select * from tuplebench_recovery")
    assert len(rec) == len(DEFAULT_SYSTEMS) * 4 * 5
    assert (rec["bootstrap_resamples"] == 2000).all()
    no_out = rec[rec["view"] == "no_output"]
    assert (no_out["recovery"] == 0.5).all() and (no_out["recovery_ci_low"] == 0.5).all()
    assert (rec["recovery_ci_low"] <= rec["recovery"]).all() and (rec["recovery"] <= rec["recovery_ci_high"]).all()
    choice = rec[rec["view"] == "choice"]
    assert (choice["gain_over_choice"] == 0).all()
    pooled = rec[rec["domain"] == "all"]
    assert (pooled["n_test_worlds"] == 144).all()
    full = pooled[pooled["view"] == "full_native"].set_index("system")
    assert (full["recovery"] > 0.5).all()  # scores reveal mechanisms absent from the candidates
    assert np.allclose(full["gain_over_choice"],
                       full["recovery"] - pooled[pooled["view"] == "choice"].set_index("system")["recovery"])


def test_utility_mart(tb):
    u = query_df("select * from tuplebench_utility")
    assert len(u) == len(DEFAULT_SYSTEMS) * 3 * 5 * 6
    ref = u[u["view"] == "full_native"]
    assert ref["noninferior_to_full_native"].isna().all() and (ref["diff_vs_full_native"] == 0).all()
    rest = u[u["view"] != "full_native"]
    assert ((rest["diff_vs_full_native_ci_high"] <= 0.1) == rest["noninferior_to_full_native"]).all()
    assert (u["mean_cost"] >= u["oracle_mean_cost"]).all()
    no_out = u[(u["view"] == "no_output") & (u["profile"] == "base") & (u["task"] == "selective")]
    assert np.allclose(no_out["mean_cost"], 2.0)  # with no release, trusted review (2) beats routing blind
    base = u[u["profile"] == "base"].pivot_table(index=["system", "task"], columns="view", values="mean_cost")
    assert (base["full_native"] < base["choice"]).mean() >= 0.5


def test_frontier_mart(tb):
    f = query_df("select * from tuplebench_frontier")
    assert len(f) == len(DEFAULT_SYSTEMS) * 5 * 3
    assert f.groupby("task")["non_dominated"].any().all()
    for _, g in f.groupby("task"):
        for r in g[g["non_dominated"]].itertuples():
            better = g[(g["recovery"] <= r.recovery) & (g["mean_cost"] <= r.mean_cost)
                       & ((g["recovery"] < r.recovery) | (g["mean_cost"] < r.mean_cost))]
            assert better.empty


def test_wcpq_mart_preserves_every_workflow(tb):
    w = query_df("select * from tuplebench_wcpq").set_index(["variant", "system"])
    strict = w.loc["wcpq_strict"]
    assert sorted(strict.index) == DEFAULT_SYSTEMS
    assert (strict["comparisons"] == 144 * 18).all()
    assert strict["all_preserved"].all() and (strict["realized_costs_preserved"] == strict["comparisons"]).all()
    assert (strict["n_cost_increases"] == 0).all() and (strict["coverage"] > 0.5).all()
    assert (strict["n_payloads_changed"] <= strict["n_covered"]).all() and (strict["n_payloads_changed"] > 0).all()
    assert np.allclose(strict["mean_cost_native"], strict["mean_cost_defended"])
    zero = w.loc["wcpq_bounded_alpha_0"]
    assert (zero["n_cost_increases"] == 0).all()
    assert (w["recovery_change_ci_low"] <= w["recovery_change"]).all()


def test_field_ablations_mart(tb):
    a = query_df("select * from tuplebench_field_ablations")
    assert set(a["variant"]) == {"native", "quantize", "top_two", "temperature", "gaussian_noise"}
    assert (a[a["variant"] == "gaussian_noise"]["n_seeds"] == 3).all()
    native = a[a["variant"] == "native"]
    assert (native["recovery_change"] == 0).all() and (native["cost_change"] == 0).all()


def test_report_section_reads_the_marts(tb):
    from evalhouse.tuplebench.report_sections import sections
    from evalhouse.warehouse import connect

    with connect(read_only=True) as con:
        secs = sections(con)
    titles = [b.title for b in secs[0].blocks]
    for expected in ("Refusal probe", "Secret recovery (section 7.2)", "Privacy-utility frontier: selective",
                     "WCPQ (section 7.5", "Cost-profile sensitivity", "probability-field ablations"):
        assert any(expected in t for t in titles), expected
    wcpq = next(b for b in secs[0].blocks if b.title.startswith("WCPQ (section 7.5"))
    assert wcpq.frame["plans_preserved"].str.fullmatch(r"(\d+)/\1").any()
