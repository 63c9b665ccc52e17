{# Final audit decision per instance: a human instance review wins, then a template review, then the
   automatic pre-label. A REWRITE with corrected SQL has already been applied to the rendered SQL, so
   it counts as approved when the corrected instance passes the automatic rules. #}
with reviews as (
    select *
    from {{ ref('cipher_audit_reviews') }}
    qualify row_number() over (partition by scope, target_id order by reviewed_at desc, review_id desc) = 1
),

joined as (
    select
        p.*,
        ri.decision as instance_decision,
        ri.justification as instance_justification,
        rt.decision as template_decision,
        rt.justification as template_justification,
        coalesce(trim(rt.corrected_sql), '') <> '' as template_corrected
    from {{ ref('int_cipher_audit_prelabels') }} as p
    left join reviews as ri on ri.scope = 'instance' and ri.target_id = p.instance_id
    left join reviews as rt on rt.scope = 'template' and rt.target_id = p.template_id
)

select
    instance_id,
    domain,
    template_id,
    auto_label,
    auto_reason,
    case
        when instance_decision = 'REMOVE' or template_decision = 'REMOVE' then 'REMOVE'
        when auto_label = 'REMOVE' then 'REMOVE'
        when instance_decision = 'APPROVE' then 'APPROVE'
        when instance_decision = 'REWRITE' then 'REWRITE'
        when template_decision = 'REWRITE' and not template_corrected then 'REWRITE'
        when template_decision = 'APPROVE' then 'APPROVE'
        else auto_label
    end as audit_status,
    case when instance_decision is not null or template_decision is not null then 'human' else 'auto' end as audit_source,
    coalesce(instance_justification, template_justification, auto_reason) as audit_reason,
    template_corrected
from joined
