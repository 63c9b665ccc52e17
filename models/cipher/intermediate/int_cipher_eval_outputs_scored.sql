{{ config(materialized='table', tags=['cipher_eval']) }}
-- Every judged output with its reference, M1/M2/M3 and, when it failed, a failure label.
-- M2 comes from the rule judge unless var cipher_m2_judge = 'llm' (then the LLM judge where it ran).
with outputs as (
    select * from {{ ref('int_cipher_eval_outputs_latest') }}
),

instances as (
    select instance_id, template_id, operation, answer_type, coalesce(in_paired_eval, false) as in_paired_eval
    from {{ ref('cipher_instances') }}
),

contexts as (
    select
        instance_id,
        condition,
        setting,
        coalesce(cast(context_answer_json as varchar), 'null') as gold_answer_json,
        from_json(cast(record_ids as varchar), '["VARCHAR"]') as context_ids
    from {{ ref('cipher_contexts') }}
),

gold as (
    select instance_id, condition, from_json(cast(support_ids as varchar), '["VARCHAR"]') as support_all
    from {{ ref('cipher_gold') }}
),

judgments as (
    select * from {{ ref('int_cipher_eval_judgments_latest') }}
),

candidates as (
    select instance_id, condition, setting, candidate_ids
    from {{ ref('int_cipher_eval_candidates_latest') }}
),

joined as (
    select
        o.*,
        i.template_id,
        i.operation,
        i.answer_type,
        i.in_paired_eval,
        c.gold_answer_json,
        c.context_ids,
        list_sort(list_filter(c.context_ids, lambda x: list_contains(coalesce(g.support_all, []), x))) as support_ids,
        list_sort(list_distinct(list_transform(
            from_json(o.cited_ids_json, '["VARCHAR"]'), lambda x: upper(trim(x))))) as cited_ids,
        ca.candidate_ids,
        r.m1,
        r.accept as accept_rule,
        r.reason as rule_reason,
        l.accept as accept_llm,
        l.judge_model as llm_judge_model
    from outputs as o
    inner join instances as i on i.instance_id = o.instance_id
    inner join contexts as c
        on c.instance_id = o.instance_id and c.condition = o.condition and c.setting = o.setting
    left join gold as g on g.instance_id = o.instance_id and g.condition = o.condition
    inner join judgments as r
        on r.output_run_id = o.run_id and r.output_id = o.output_id and r.judge = 'rule'
        and r.gold_hash = md5(c.gold_answer_json)
    left join judgments as l
        on l.output_run_id = o.run_id and l.output_id = o.output_id and l.judge = 'llm'
        and l.gold_hash = md5(c.gold_answer_json)
    left join candidates as ca
        on ca.instance_id = o.instance_id and ca.condition = o.condition and ca.setting = o.setting
),

metrics as (
    select
        *,
        case when accept_rule then 1 else 0 end as m2_rule,
        case when accept_llm is null then null when accept_llm then 1 else 0 end as m2_llm,
        case
            when '{{ var("cipher_m2_judge", "rule") }}' = 'llm' and accept_llm is not null then 'llm'
            else 'rule'
        end as m2_judge,
        len(cited_ids) as n_cited,
        len(support_ids) as n_support,
        len(list_intersect(cited_ids, support_ids)) as n_cited_support,
        len(list_filter(cited_ids, lambda x: not list_contains(context_ids, x))) as n_cited_outside_context,
        case when candidate_ids is null then null
            else len(list_filter(cited_ids, lambda x: not list_contains(candidate_ids, x))) end as n_cited_outside_candidates
    from joined
),

harmonic as (
    select
        *,
        case when m2_judge = 'llm' then m2_llm else m2_rule end as m2
    from metrics
),

scored as (
    select
        *,
        case when m1 > 0 and m2 > 0 then 2 * m1 * m2 / (m1 + m2) else 0.0 end as m3,
        case when n_cited + n_support = 0 then 1.0
            else 2.0 * n_cited_support / (n_cited + n_support) end as cited_support_f1
    from harmonic
)

select
    *,
    m3 = 0 as failed,
    case
        when m3 > 0 then null
        when status <> 'ok' then 'other'
        when n_cited = 0 and n_support > 0 then 'evidence_selection'
        when n_cited > 0 and 2 * n_cited_outside_context >= n_cited then 'entity_grounding'
        when cited_support_f1 >= 0.8 then 'aggregation_count'
        when n_cited_outside_candidates = 0 then 'predicate_interpretation'
        else 'evidence_selection'
    end as failure_label
from scored
