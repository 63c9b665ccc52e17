-- Public (paper Table 2): FRR, PRR, NRR and MRS = FRR + 0.5 PRR (percent) per system, model and
-- dataset ('all' pools both), conflict vs deletion micro-averages, and the refusal rates that
-- keep a refusing system honest: on robustness instances and on unperturbed tasks (false refusals).
with scored as (
    select * from {{ ref('int_trustda_eval_outputs_scored') }}
),
rel as (
    select
        system, model, coalesce(dataset, 'all') as dataset,
        count(*) as n_instances,
        count(reliability_mode) as n_judged,
        100.0 * avg(case reliability_mode when 'full' then 1.0 when 'partial' then 0 when 'none' then 0 end) as frr,
        100.0 * avg(case reliability_mode when 'partial' then 1.0 when 'full' then 0 when 'none' then 0 end) as prr,
        100.0 * avg(case reliability_mode when 'none' then 1.0 when 'full' then 0 when 'partial' then 0 end) as nrr,
        100.0 * avg(reliability_score) as mrs,
        100.0 * avg(reliability_score) filter (where operator_family = 'conflict') as mrs_conflict,
        100.0 * avg(reliability_score) filter (where operator_family = 'deletion') as mrs_deletion,
        count(reliability_score) filter (where operator_family = 'conflict') as n_conflict,
        count(reliability_score) filter (where operator_family = 'deletion') as n_deletion,
        100.0 * avg(refused::integer) as refusal_rate_reliability,
        string_agg(distinct judge, ',' order by judge) as judges
    from scored
    where track = 'reliability'
    group by grouping sets ((system, model, dataset), (system, model))
),
refusals as (
    select
        system, model, coalesce(dataset, 'all') as dataset,
        100.0 * avg(refused::integer) filter (where track = 'robustness') as refusal_rate_robustness,
        100.0 * avg(refused::integer) filter (where track = 'original') as false_refusal_rate,
        count(*) filter (where track = 'original') as n_original
    from scored
    where track in ('robustness', 'original')
    group by grouping sets ((system, model, dataset), (system, model))
),
average as (
    select system, model, avg(mrs) as avg_mrs
    from rel where dataset <> 'all'
    group by system, model
)
select
    {{ surrogate_key(['r.system', 'r.model', 'r.dataset']) }} as reliability_key,
    r.system,
    r.model,
    r.dataset,
    r.n_instances,
    r.n_judged,
    r.frr,
    r.prr,
    r.nrr,
    r.mrs,
    a.avg_mrs,
    r.mrs_conflict,
    r.mrs_deletion,
    r.n_conflict,
    r.n_deletion,
    r.refusal_rate_reliability,
    f.refusal_rate_robustness,
    f.false_refusal_rate,
    f.n_original,
    r.judges
from rel as r
left join refusals as f using (system, model, dataset)
left join average as a using (system, model)
