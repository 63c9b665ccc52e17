-- Everything a system answers: the original source tasks and the accepted perturbed instances,
-- with the evaluator-side attributes the metrics group by (never shown to systems).
with instances as (
    select
        instance_id,
        source_task_id,
        dataset,
        track,
        operator,
        operator_code,
        level,
        package_hash,
        gold_reason_code
    from {{ ref('trustda_instances') }}
),
originals as (
    select
        source_task_id as instance_id,
        source_task_id,
        dataset,
        'original' as track,
        cast(null as varchar) as operator,
        cast(null as varchar) as operator_code,
        cast(null as varchar) as level,
        package_hash,
        cast(null as varchar) as gold_reason_code
    from {{ ref('trustda_source_tasks') }}
    where answer_status in ('ok', 'label')  -- a source without a reference answer cannot be scored
),
items as (
    select * from instances
    union all
    select * from originals
)
select
    items.*,
    ops.operator_family,
    ops.difficulty_level,
    ops.difficulty_rank
from items
left join {{ ref('int_trustda_eval_operator_catalog') }} as ops using (operator_code)
