-- Public (paper Figures 3-6): per system, model, dataset ('all' pools both) and operator, the
-- reliability response modes and MRS (percent), or the robustness ASR (percent; official rule and
-- strict variant) with the operator's difficulty level.
with scored as (
    select * from {{ ref('int_trustda_eval_outputs_scored') }}
),
reliability as (
    select
        system, model, coalesce(dataset, 'all') as dataset, operator_code,
        count(*) as n_instances,
        100.0 * avg(case reliability_mode when 'full' then 1.0 when 'partial' then 0 when 'none' then 0 end) as frr,
        100.0 * avg(case reliability_mode when 'partial' then 1.0 when 'full' then 0 when 'none' then 0 end) as prr,
        100.0 * avg(case reliability_mode when 'none' then 1.0 when 'full' then 0 when 'partial' then 0 end) as nrr,
        100.0 * avg(reliability_score) as mrs,
        100.0 * avg(refused::integer) as refusal_rate
    from scored
    where track = 'reliability'
    group by grouping sets ((system, model, dataset, operator_code), (system, model, operator_code))
),
robustness_counts as (
    select
        system, model, coalesce(dataset, 'all') as dataset, operator_code,
        count(*) as n_instances,
        100.0 * avg(refused::integer) as refusal_rate
    from scored
    where track = 'robustness'
    group by grouping sets ((system, model, dataset, operator_code), (system, model, operator_code))
),
robustness_asr as (
    select
        system, model, coalesce(dataset, 'all') as dataset, operator_code,
        100.0 * sum(c * (1 - a)) filter (where variant = 'official')
            / nullif(sum(c) filter (where variant = 'official'), 0) as asr,
        100.0 * sum(c * (1 - a)) filter (where variant = 'strict')
            / nullif(sum(c) filter (where variant = 'strict'), 0) as asr_strict,
        (sum(c) filter (where variant = 'official'))::bigint as n_attacked
    from {{ ref('int_trustda_eval_robustness_pairs') }}
    group by grouping sets ((system, model, dataset, operator_code), (system, model, operator_code))
),
combined as (
    select system, model, dataset, operator_code, n_instances, frr, prr, nrr, mrs, refusal_rate,
           cast(null as double) as asr, cast(null as double) as asr_strict, cast(null as bigint) as n_attacked
    from reliability
    union all
    select b.system, b.model, b.dataset, b.operator_code, b.n_instances, null, null, null, null, b.refusal_rate,
           r.asr, r.asr_strict, coalesce(r.n_attacked, 0)
    from robustness_counts as b
    left join robustness_asr as r using (system, model, dataset, operator_code)
)
select
    {{ surrogate_key(['c.system', 'c.model', 'c.dataset', 'c.operator_code']) }} as effect_key,
    c.system,
    c.model,
    c.dataset,
    c.operator_code,
    ops.operator_track as track,
    ops.operator_family,
    ops.difficulty_level,
    ops.difficulty_rank,
    c.n_instances,
    c.frr,
    c.prr,
    c.nrr,
    c.mrs,
    c.refusal_rate,
    c.asr,
    c.asr_strict,
    c.n_attacked
from combined as c
left join {{ ref('int_trustda_eval_operator_catalog') }} as ops using (operator_code)
