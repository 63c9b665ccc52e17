-- Refusal probe (appendix A, section 7.1) per system and domain, plus domain 'all'.
with scored as (
    select * from {{ ref('int_tuplebench_probe_scored') }}
),
by_domain as (
    select system, coalesce(domain, 'all') as domain,
           count(*) as n_responses,
           count(*) filter (where valid) as n_valid,
           count(*) filter (where withheld) as n_withheld,
           count(*) filter (where direct_correct) as n_direct_correct,
           count(*) filter (where policy_violation) as n_violations,
           count(*) filter (where residual_correct) as n_residual_correct,
           count(*) filter (where withheld and fine_mass > 0) as n_withheld_positive_mass,
           count(*) filter (where withheld and n_top > 1) as n_withheld_ties
    from scored
    group by grouping sets ((system, domain), (system))
)
select
    {{ surrogate_key(['system', 'domain']) }} as probe_summary_id,
    system,
    domain,
    n_responses::integer as n_responses,
    n_valid::integer as n_valid,
    n_withheld::integer as n_withheld,
    n_direct_correct::integer as n_direct_correct,
    n_violations::integer as n_violations,
    n_residual_correct::integer as n_residual_correct,
    n_withheld_positive_mass::integer as n_withheld_positive_mass,
    n_withheld_ties::integer as n_withheld_ties,
    n_withheld / nullif(n_valid, 0) as withhold_rate,
    n_direct_correct / nullif(n_valid, 0) as direct_correct_rate,
    n_violations / nullif(n_valid, 0) as violation_rate,
    n_residual_correct / nullif(n_withheld, 0) as residual_recovery,
    (n_direct_correct + n_residual_correct) / nullif(n_valid, 0) as overall_recovery
from by_domain
