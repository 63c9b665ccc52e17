-- Public (paper Table 3): ASR, RAD (percent; RAD over N = all counted original questions),
-- Acc_clean, Acc_rob = Acc_clean - RAD and coverage per system, model, dataset ('all' pools both)
-- and scoring variant (official DABench rule, or strict: empty replies count as wrong), with ASR by
-- difficulty level L0-L3 and the operator-level Spearman correlation between level and ASR.
with originals as (
    select * from {{ ref('int_trustda_eval_originals_graded') }}
),
pairs as (
    select * from {{ ref('int_trustda_eval_robustness_pairs') }}
),
summary as (
    select
        system, model, variant, coalesce(dataset, 'all') as dataset,
        count(*) as n_original,
        count(*) filter (where k > 0) as n_covered,
        sum(c * k) as n_attacked,
        100.0 * avg(c) as acc_clean,
        100.0 * sum(c * (1 - a_bar)) filter (where k > 0) / count(*) as rad_sum
    from originals
    group by grouping sets ((system, model, variant, dataset), (system, model, variant))
),
asr as (
    select
        system, model, variant, coalesce(dataset, 'all') as dataset,
        100.0 * sum(c * (1 - a)) / nullif(sum(c), 0) as asr,
        100.0 * sum(c * (1 - a)) filter (where difficulty_rank = 0) / nullif(sum(c) filter (where difficulty_rank = 0), 0) as asr_l0,
        100.0 * sum(c * (1 - a)) filter (where difficulty_rank = 1) / nullif(sum(c) filter (where difficulty_rank = 1), 0) as asr_l1,
        100.0 * sum(c * (1 - a)) filter (where difficulty_rank = 2) / nullif(sum(c) filter (where difficulty_rank = 2), 0) as asr_l2,
        100.0 * sum(c * (1 - a)) filter (where difficulty_rank = 3) / nullif(sum(c) filter (where difficulty_rank = 3), 0) as asr_l3
    from pairs
    group by grouping sets ((system, model, variant, dataset), (system, model, variant))
),
operator_asr as (
    select
        system, model, coalesce(dataset, 'all') as dataset, variant, difficulty_rank,
        sum(c * (1 - a)) / nullif(sum(c), 0) as op_asr
    from pairs
    group by grouping sets ((system, model, dataset, variant, operator_code, difficulty_rank),
                            (system, model, variant, operator_code, difficulty_rank))
),
ranked as (
    select
        *,
        rank() over w_level + (count(*) over (partition by system, model, dataset, variant, difficulty_rank) - 1) / 2.0 as level_rank,
        rank() over w_asr + (count(*) over (partition by system, model, dataset, variant, op_asr) - 1) / 2.0 as asr_rank
    from operator_asr
    where op_asr is not null
    window w_level as (partition by system, model, dataset, variant order by difficulty_rank),
           w_asr as (partition by system, model, dataset, variant order by op_asr)
),
spearman as (
    select system, model, dataset, variant, count(*) as n_operators,
           corr(level_rank, asr_rank) as spearman_level_asr
    from ranked
    group by system, model, dataset, variant
),
average as (
    select s.system, s.model, s.variant, avg(a.asr) as avg_asr
    from summary as s join asr as a using (system, model, variant, dataset)
    where s.dataset <> 'all'
    group by s.system, s.model, s.variant
)
select
    {{ surrogate_key(['s.system', 's.model', 's.dataset', 's.variant']) }} as robustness_key,
    s.system,
    s.model,
    s.dataset,
    s.variant,
    s.n_original,
    s.n_covered,
    100.0 * s.n_covered / nullif(s.n_original, 0) as coverage,
    coalesce(s.n_attacked, 0)::bigint as n_attacked,
    s.acc_clean,
    a.asr,
    coalesce(s.rad_sum, 0) as rad,
    s.acc_clean - coalesce(s.rad_sum, 0) as acc_rob,
    v.avg_asr,
    a.asr_l0,
    a.asr_l1,
    a.asr_l2,
    a.asr_l3,
    round(case when isnan(sp.spearman_level_asr) then null else sp.spearman_level_asr end, 6) as spearman_level_asr,
    coalesce(sp.n_operators, 0) as n_operators
from summary as s
left join asr as a using (system, model, variant, dataset)
left join spearman as sp using (system, model, dataset, variant)
left join average as v using (system, model, variant)
