-- The current reply of each (system, model, item): the newest landed reply whose package is the
-- item's current package (a regenerated instance invalidates older replies), with its reliability
-- judgment (the LLM judge's when there is one, else the rule judge's) and its correctness.
with outputs as (
    select o.*
    from {{ ref('stg_landing_trustda_eval__outputs') }} as o
    join {{ ref('int_trustda_eval_items') }} as i
      on i.instance_id = o.instance_id and i.package_hash = o.package_hash and i.track = o.track
    qualify row_number() over (
        partition by o.system, o.model, o.instance_id order by o.written_at desc, o.run_id desc) = 1
),
judgments as (
    select *
    from {{ ref('stg_landing_trustda_eval__judgments') }}
    qualify row_number() over (
        partition by output_run_id, output_id
        order by case judge when 'llm' then 0 else 1 end, written_at desc, judgment_id) = 1
),
correctness as (
    select *
    from {{ ref('stg_landing_trustda_eval__correctness') }}
    qualify row_number() over (partition by output_run_id, output_id order by written_at desc) = 1
),
steps as (
    select run_id, output_id, count(distinct step) as trajectory_steps
    from {{ ref('stg_landing_trustda_eval__trajectory_steps') }}
    group by run_id, output_id
)
select
    {{ surrogate_key(['o.system', 'o.model', 'o.instance_id']) }} as output_key,
    o.run_id,
    o.output_id,
    o.system,
    o.model,
    o.instance_id,
    o.source_task_id,
    i.dataset,
    o.track,
    i.operator,
    i.operator_code,
    i.operator_family,
    i.level,
    i.difficulty_level,
    i.difficulty_rank,
    i.gold_reason_code,
    o.reply,
    o.has_final_answer,
    o.decision,
    o.decision = 'refuse' as refused,
    o.findings,
    o.status,
    o.error,
    o.turns,
    o.tool_calls,
    o.tool_errors,
    o.input_tokens,
    o.output_tokens,
    o.latency_ms,
    o.gate_ms,
    coalesce(s.trajectory_steps, 0) as trajectory_steps,
    j.judge,
    j.judge_model,
    j.mode as reliability_mode,
    j.score as reliability_score,
    j.failure_form,
    c.counted_official,
    c.correct_official,
    c.correct_strict
from outputs as o
join {{ ref('int_trustda_eval_items') }} as i
  on i.instance_id = o.instance_id and i.track = o.track
left join judgments as j on j.output_run_id = o.run_id and j.output_id = o.output_id
left join correctness as c on c.output_run_id = o.run_id and c.output_id = o.output_id
left join steps as s on s.run_id = o.run_id and s.output_id = o.output_id
