-- Accepted instances: what an evaluation runs. Systems may see question, answer_format and the
-- files under package_path only (never operator, track, gold_* or reference_*).
select
    c.candidate_id as instance_id,
    c.source_task_id,
    c.dataset,
    c.operator,
    c.operator_code,
    c.track,
    c.level,
    c.new_question as question,
    s.answer_format,
    c.package_path,
    c.package_hash,
    c.files,
    case when c.track = 'reliability' then 'refuse' else 'answer' end as expected_behavior,
    c.gold_reason,
    c.gold_reason_code,
    coalesce(c.gold_evidence, '{}') as gold_evidence,
    case when c.track = 'robustness' then s.reference_answer end as reference_answer,
    case when c.track = 'robustness' then s.reference_pairs end as reference_pairs,
    c.counterfactual_answer,
    s.reference_answer as source_reference_answer,
    c.candidate_id
from {{ ref('int_trustda_candidates_verified') }} c
join {{ ref('trustda_source_tasks') }} s using (source_task_id)
where c.verdict <> 'Rejected'
  and s.answer_status in ('ok', 'label')
