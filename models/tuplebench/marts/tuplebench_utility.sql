-- Downstream utility (sections 5.3, 7.3; appendices C, F.2, I.8, I.9) from the latest part-2 run.
select
    {{ surrogate_key(['s.system', 's.task', 's.view', 's.profile']) }} as utility_id,
    s.system,
    s.task,
    s.view,
    case s.view when 'no_output' then 1 when 'choice' then 2 when 'choice_confidence' then 3
                when 'choice_probabilities' then 4 else 5 end as view_order,
    s.profile,
    p.profile_order::integer as profile_order,
    s.mean_cost,
    s.ci_low as mean_cost_ci_low,
    s.ci_high as mean_cost_ci_high,
    s.diff_vs_full_native,
    s.diff_ci_low as diff_vs_full_native_ci_low,
    s.diff_ci_high as diff_vs_full_native_ci_high,
    s.noninferior as noninferior_to_full_native,
    s.delta as noninferiority_delta,
    s.oracle_mean_cost,
    s.n_pairs::integer as n_test_pairs,
    s.run_id as part2_run_id
from {{ ref('stg_landing_tuplebench__utility_stats') }} s
left join {{ ref('tuplebench_cost_profiles') }} p on p.profile = s.profile
where s.run_id = {{ latest_finished_run('tuplebench.part2') }}
