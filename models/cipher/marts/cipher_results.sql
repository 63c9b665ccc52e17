{{ config(tags=['cipher_eval']) }}
-- Public mart: M1/M2/M3 averaged over instances (percent) per run x system x model x condition x
-- setting and slice (domain, operation, answer type; '(all)' = every value). Table 5, Figure 4,
-- Table 3 and the built-in systems' table read from here.
with scores as (
    select * from {{ ref('cipher_scores') }}
),

latest_run as (
    select system, model, arg_max(run_id, output_written_at) as run_id
    from scores
    group by system, model
),

aggregated as (
    select
        run_id,
        system,
        family,
        model,
        condition,
        setting,
        coalesce(domain, '(all)') as domain,
        coalesce(operation, '(all)') as operation,
        coalesce(answer_type, '(all)') as answer_type,
        count(*) as n_instances,
        count(*) filter (where status <> 'ok') as n_invalid,
        100 * avg(m1) as m1,
        100 * avg(m2) as m2,
        100 * avg(m3) as m3,
        100 * avg(m2_rule) as m2_rule,
        100 * avg(m2_llm) as m2_llm,
        count(m2_llm) as n_llm_judged,
        avg(prompt_tokens) as mean_prompt_tokens
    from scores
    group by grouping sets (
        (run_id, system, family, model, condition, setting),
        (run_id, system, family, model, condition, setting, domain),
        (run_id, system, family, model, condition, setting, operation),
        (run_id, system, family, model, condition, setting, answer_type),
        (run_id, system, family, model, condition, setting, domain, operation),
        (run_id, system, family, model, condition, setting, domain, answer_type)
    )
)

select
    cast({{ surrogate_key(['a.run_id', 'a.system', 'a.model', 'a.condition', 'a.setting', 'a.domain', 'a.operation', 'a.answer_type']) }} as varchar) as results_key,
    cast(a.run_id as varchar) as run_id,
    cast(a.system as varchar) as system,
    cast(a.family as varchar) as family,
    cast(a.model as varchar) as model,
    cast(a.condition as varchar) as condition,
    cast(a.setting as varchar) as setting,
    cast(a.domain as varchar) as domain,
    cast(a.operation as varchar) as operation,
    cast(a.answer_type as varchar) as answer_type,
    cast(a.n_instances as bigint) as n_instances,
    cast(a.n_invalid as bigint) as n_invalid,
    cast(a.m1 as double) as m1,
    cast(a.m2 as double) as m2,
    cast(a.m3 as double) as m3,
    cast(a.m2_rule as double) as m2_rule,
    cast(a.m2_llm as double) as m2_llm,
    cast(a.n_llm_judged as bigint) as n_llm_judged,
    cast(a.mean_prompt_tokens as double) as mean_prompt_tokens,
    cast(l.run_id is not null as boolean) as is_latest_run
from aggregated as a
left join latest_run as l on l.system = a.system and l.model = a.model and l.run_id = a.run_id
