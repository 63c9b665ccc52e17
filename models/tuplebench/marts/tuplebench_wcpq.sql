-- WCPQ (section 6, 7.5; appendix H) per system and variant from the latest part-2 run.
select
    {{ surrogate_key(['system', 'variant']) }} as wcpq_id,
    system,
    variant,
    alpha,
    n_test::integer as n_test,
    n_covered::integer as n_covered,
    n_covered / nullif(n_test, 0) as coverage,
    (n_test - n_covered)::integer as n_fallback,
    n_payloads_changed::integer as n_payloads_changed,
    comparisons::integer as comparisons,
    plans_preserved::integer as plans_preserved,
    costs_preserved::integer as costs_preserved,
    realized_costs_preserved::integer as realized_costs_preserved,
    plans_preserved = comparisons and costs_preserved = comparisons as all_preserved,
    n_cost_increases::integer as n_cost_increases,
    codebook_size::integer as codebook_size,
    recovery_native, recovery_native_ci_low, recovery_native_ci_high,
    recovery_defended, recovery_defended_ci_low, recovery_defended_ci_high,
    recovery_change, recovery_change_ci_low, recovery_change_ci_high,
    mean_cost_native, mean_cost_defended,
    run_id as part2_run_id
from {{ ref('stg_landing_tuplebench__wcpq_stats') }}
where run_id = {{ latest_finished_run('tuplebench.part2') }}
