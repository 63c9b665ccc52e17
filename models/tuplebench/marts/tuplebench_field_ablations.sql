-- Independent probability-field ablations (appendix H.3, I.7) per system, variant and task
-- (base cost profile), from the latest part-2 run.
select
    {{ surrogate_key(['system', 'variant', 'task']) }} as ablation_id,
    system, variant, task,
    n_seeds::integer as n_seeds,
    recovery, recovery_ci_low, recovery_ci_high,
    recovery_change, recovery_change_ci_low, recovery_change_ci_high,
    mean_cost, mean_cost_ci_low, mean_cost_ci_high,
    cost_change, cost_change_ci_low, cost_change_ci_high,
    run_id as part2_run_id
from {{ ref('stg_landing_tuplebench__ablation_stats') }}
where run_id = {{ latest_finished_run('tuplebench.part2') }}
