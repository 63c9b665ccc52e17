"""Landing tables of TUPLE-Bench part 2 (evaluation): frozen policies, workflow outcomes,
utility statistics, WCPQ verification and field ablations."""
from ..landing import declare

declare("tuplebench_policies", {
    "system": "string", "domain": "string", "view": "string", "variant": "string", "task": "string",
    "profile": "string", "estimator": "string", "validation_costs": "json", "cost_matrix": "json",
    "check_cost": "float",
}, "Frozen downstream policies (selected on validation), one per system x domain x view x variant x task x profile.")

declare("tuplebench_workflow_outcomes", {
    "system": "string", "view": "string", "variant": "string", "task": "string", "profile": "string",
    "world_id": "string", "pair_id": "string", "domain": "string", "plan": "string",
    "realized_cost": "float", "oracle_cost": "float",
}, "Each test world's complete action plan and realized cost under each frozen workflow.")

declare("tuplebench_utility_stats", {
    "system": "string", "view": "string", "task": "string", "profile": "string",
    "mean_cost": "float", "ci_low": "float", "ci_high": "float",
    "diff_vs_full_native": "float", "diff_ci_low": "float", "diff_ci_high": "float",
    "noninferior": "bool", "oracle_mean_cost": "float", "n_pairs": "int", "estimators": "json",
    "delta": "float",
}, "Mean cost with paired 95% pair-bootstrap intervals and the non-inferiority verdict.")

declare("tuplebench_wcpq_stats", {
    "system": "string", "variant": "string", "alpha": "float", "n_test": "int", "n_covered": "int",
    "n_payloads_changed": "int", "comparisons": "int", "plans_preserved": "int",
    "costs_preserved": "int", "realized_costs_preserved": "int", "codebook_size": "int",
    "recovery_native": "float", "recovery_native_ci_low": "float", "recovery_native_ci_high": "float",
    "recovery_defended": "float", "recovery_defended_ci_low": "float", "recovery_defended_ci_high": "float",
    "recovery_change": "float", "recovery_change_ci_low": "float", "recovery_change_ci_high": "float",
    "mean_cost_native": "float", "mean_cost_defended": "float", "n_cost_increases": "int",
}, "WCPQ strict and bounded-cost variants per system: verification, coverage, recovery before/after.")

declare("tuplebench_ablation_stats", {
    "system": "string", "variant": "string", "task": "string", "n_seeds": "int",
    "recovery": "float", "recovery_ci_low": "float", "recovery_ci_high": "float",
    "recovery_change": "float", "recovery_change_ci_low": "float", "recovery_change_ci_high": "float",
    "mean_cost": "float", "mean_cost_ci_low": "float", "mean_cost_ci_high": "float",
    "cost_change": "float", "cost_change_ci_low": "float", "cost_change_ci_high": "float",
}, "Independent probability-field ablations with fresh decoders and refitted recipients (base profile).")
