-- One row per (system, model, scoring variant, original source task) whose reply is counted:
-- c = original correctness, with the task's perturbation count and mean perturbed correctness.
with scored as (
    select * from {{ ref('int_trustda_eval_outputs_scored') }} where track = 'original'
),
variants as (
    select 'official' as variant union all select 'strict'
),
originals as (
    select
        s.system, s.model, v.variant, s.dataset, s.source_task_id,
        case when v.variant = 'official' then s.correct_official else s.correct_strict end as correct,
        case when v.variant = 'official' then coalesce(s.counted_official, false)
             else s.correct_strict is not null end as counted
    from scored as s
    cross join variants as v
),
per_question as (
    select system, model, variant, source_task_id, count(*) as k, avg(a) as a_bar
    from {{ ref('int_trustda_eval_robustness_pairs') }}
    group by system, model, variant, source_task_id
)
select
    {{ surrogate_key(['o.system', 'o.model', 'o.variant', 'o.source_task_id']) }} as original_key,
    o.system,
    o.model,
    o.variant,
    o.dataset,
    o.source_task_id,
    o.correct::integer as c,
    coalesce(q.k, 0) as k,
    q.a_bar
from originals as o
left join per_question as q using (system, model, variant, source_task_id)
where o.counted
