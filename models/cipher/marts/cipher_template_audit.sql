{# The audit log: automatic pre-labels (reviewer auto-rules, one per instance, recomputed at every
   build) and human reviews from the seed cipher_audit_reviews. #}
select
    {{ surrogate_key(["'auto'", 'instance_id']) }} as audit_id,
    'instance' as scope,
    instance_id as target_id,
    template_id,
    domain,
    'auto-rules' as reviewer,
    auto_label as decision,
    auto_reason as justification,
    cast(null as varchar) as corrected_sql,
    cast(null as timestamp) as reviewed_at,
    'auto' as source
from {{ ref('int_cipher_audit_prelabels') }}
union all
select
    {{ surrogate_key(["'human'", 'r.review_id']) }} as audit_id,
    r.scope,
    r.target_id,
    coalesce(i.template_id, r.target_id) as template_id,
    coalesce(i.domain, t.domain) as domain,
    r.reviewer,
    r.decision,
    r.justification,
    r.corrected_sql,
    cast(r.reviewed_at as timestamp) as reviewed_at,
    'human' as source
from {{ ref('cipher_audit_reviews') }} as r
left join {{ ref('int_cipher_instances_rendered') }} as i on r.scope = 'instance' and i.instance_id = r.target_id
left join {{ ref('cipher_templates') }} as t on t.template_id = coalesce(i.template_id, r.target_id)
