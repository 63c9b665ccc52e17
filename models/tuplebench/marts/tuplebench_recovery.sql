-- Secret recovery per system x domain x view (section 7.2): frozen decoders scored once on the
-- test worlds, with 95% pair-clustered percentile bootstrap intervals (2,000 resamples).
with s as (
    select * from {{ ref('int_tuplebench_recovery_stats_current') }}
    where variant = 'native'
),
wide as (
    select
        system, domain, view,
        max(decoder) as decoder,
        max(n_worlds) filter (where metric = 'recovery') as n_test_worlds,
        max(estimate) filter (where metric = 'recovery') as recovery,
        max(ci_low) filter (where metric = 'recovery') as recovery_ci_low,
        max(ci_high) filter (where metric = 'recovery') as recovery_ci_high,
        max(estimate) filter (where metric = 'gain_vs_no_output') as gain_over_no_output,
        max(ci_low) filter (where metric = 'gain_vs_no_output') as gain_over_no_output_ci_low,
        max(ci_high) filter (where metric = 'gain_vs_no_output') as gain_over_no_output_ci_high,
        max(estimate) filter (where metric = 'gain_vs_choice') as gain_over_choice,
        max(ci_low) filter (where metric = 'gain_vs_choice') as gain_over_choice_ci_low,
        max(ci_high) filter (where metric = 'gain_vs_choice') as gain_over_choice_ci_high,
        max(estimate) filter (where metric = 'recovery_both_worlds_correct') as recovery_both_worlds_correct,
        max(ci_low) filter (where metric = 'recovery_both_worlds_correct') as recovery_both_worlds_correct_ci_low,
        max(ci_high) filter (where metric = 'recovery_both_worlds_correct') as recovery_both_worlds_correct_ci_high,
        max(n_pairs) filter (where metric = 'recovery_both_worlds_correct') as n_both_worlds_correct_pairs,
        max(bootstrap_resamples) as bootstrap_resamples,
        max(decode_run_id) as decode_run_id
    from s
    group by system, domain, view
)
select
    {{ surrogate_key(['system', 'domain', 'view']) }} as recovery_id,
    system,
    domain,
    view,
    case view when 'no_output' then 1 when 'choice' then 2 when 'choice_confidence' then 3
              when 'choice_probabilities' then 4 else 5 end as view_order,
    decoder,
    n_test_worlds::integer as n_test_worlds,
    recovery,
    recovery_ci_low,
    recovery_ci_high,
    gain_over_no_output,
    gain_over_no_output_ci_low,
    gain_over_no_output_ci_high,
    gain_over_choice,
    gain_over_choice_ci_low,
    gain_over_choice_ci_high,
    recovery_both_worlds_correct,
    recovery_both_worlds_correct_ci_low,
    recovery_both_worlds_correct_ci_high,
    n_both_worlds_correct_pairs::integer as n_both_worlds_correct_pairs,
    bootstrap_resamples::integer as bootstrap_resamples,
    decode_run_id
from wide
