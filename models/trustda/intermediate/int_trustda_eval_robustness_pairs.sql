-- One row per (system, model, scoring variant, robustness instance) whose original reply is
-- counted: c = original correctness, a = correctness under the perturbation. The official
-- variant drops missing/empty replies (original or perturbed) as the DABench script does; the
-- strict variant counts them as wrong.
with scored as (
    select * from {{ ref('int_trustda_eval_outputs_scored') }}
    where track in ('original', 'robustness')
),
variants as (
    select 'official' as variant union all select 'strict'
),
graded as (
    select
        s.*,
        v.variant,
        case when v.variant = 'official' then s.correct_official else s.correct_strict end as correct,
        case when v.variant = 'official' then coalesce(s.counted_official, false)
             else s.correct_strict is not null end as counted
    from scored as s
    cross join variants as v
)
select
    {{ surrogate_key(['p.system', 'p.model', 'p.variant', 'p.instance_id']) }} as pair_key,
    p.system,
    p.model,
    p.variant,
    p.dataset,
    p.source_task_id,
    p.instance_id,
    p.operator_code,
    p.difficulty_level,
    p.difficulty_rank,
    o.correct::integer as c,
    p.correct::integer as a
from graded as p
join graded as o
  on o.track = 'original' and o.counted
 and o.system = p.system and o.model = p.model and o.variant = p.variant
 and o.source_task_id = p.source_task_id
where p.track = 'robustness' and p.counted
