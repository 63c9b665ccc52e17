with paired as (
    select instance_id, bool_and(status = 'ok') as ok_both
    from {{ ref('int_cipher_gold_executed') }}
    group by instance_id
)

select
    i.instance_id,
    i.domain,
    i.template_id,
    i.operation,
    i.answer_type,
    i.question,
    cast(i.question_words as integer) as question_words,
    i.sql,
    i.support_sql,
    i.params_json,
    i.structured_columns,
    i.annotation_columns,
    coalesce(i.is_hybrid, false) as is_hybrid,
    d.audit_status,
    d.audit_source,
    d.audit_reason,
    d.audit_status = 'APPROVE' and coalesce(i.is_hybrid, false) as in_benchmark,
    d.audit_status = 'APPROVE' and coalesce(i.is_hybrid, false) and coalesce(p.ok_both, false) as in_paired_eval
from {{ ref('int_cipher_instances_rendered') }} as i
left join {{ ref('int_cipher_audit_decisions') }} as d using (instance_id)
left join paired as p using (instance_id)
