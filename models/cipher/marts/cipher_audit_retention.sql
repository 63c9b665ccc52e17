{# Figure 3: template dispositions per domain. A template's decision is its latest human
   template-level review, else derived from its instances' final statuses: APPROVE when every
   instance is approved (REWRITE when its SQL was corrected), REWRITE when some are, REMOVE when none
   is (or it produced no instance). #}
with templates as (
    select template_id, domain from {{ ref('cipher_templates') }}
    union
    select distinct template_id, domain from {{ ref('int_cipher_audit_decisions') }}
),

inst as (
    select
        template_id,
        count(*) as n_instances,
        count(*) filter (where audit_status = 'APPROVE') as n_approved,
        bool_or(template_corrected) as corrected
    from {{ ref('int_cipher_audit_decisions') }}
    group by template_id
),

human as (
    select target_id as template_id, decision
    from {{ ref('cipher_audit_reviews') }}
    where scope = 'template'
    qualify row_number() over (partition by target_id order by reviewed_at desc, review_id desc) = 1
),

decided as (
    select
        t.domain,
        t.template_id,
        coalesce(i.n_instances, 0) as n_instances,
        coalesce(i.n_approved, 0) as n_approved,
        coalesce(
            case when h.decision = 'REWRITE' and coalesce(i.n_approved, 0) = 0 then 'REMOVE' else h.decision end,
            case
                when coalesce(i.n_approved, 0) = 0 then 'REMOVE'
                when i.n_approved < i.n_instances or i.corrected then 'REWRITE'
                else 'APPROVE'
            end
        ) as decision
    from templates as t
    left join inst as i using (template_id)
    left join human as h using (template_id)
)

select
    domain,
    cast(count(*) as integer) as n_templates,
    cast(count(*) filter (where decision = 'APPROVE') as integer) as n_approved,
    cast(count(*) filter (where decision = 'REWRITE') as integer) as n_rewritten,
    cast(count(*) filter (where decision = 'REMOVE') as integer) as n_removed,
    cast(round(100.0 * count(*) filter (where decision <> 'REMOVE') / count(*), 1) as double) as retained_pct,
    cast(sum(n_instances) as integer) as n_instances,
    cast(sum(n_approved) as integer) as n_instances_approved
from decided
group by domain
