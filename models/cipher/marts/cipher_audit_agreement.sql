{# Table 2: Cohen's kappa per reviewer pair over the items both reviewed (latest decision each).
   kappa = (p_o - p_e) / (1 - p_e) over the three labels; null when p_e = 1 (no variation). #}
with latest as (
    select scope, target_id, reviewer, decision
    from {{ ref('cipher_audit_reviews') }}
    qualify row_number() over (partition by scope, target_id, reviewer order by reviewed_at desc, review_id desc) = 1
),

pairs as (
    select a.reviewer as reviewer_a, b.reviewer as reviewer_b, a.decision as decision_a, b.decision as decision_b
    from latest as a
    inner join latest as b
        on a.scope = b.scope and a.target_id = b.target_id and a.reviewer < b.reviewer
),

observed as (
    select reviewer_a, reviewer_b, count(*) as n_items, avg(case when decision_a = decision_b then 1.0 else 0.0 end) as p_o
    from pairs
    group by reviewer_a, reviewer_b
),

labels as (
    select * from (values ('APPROVE'), ('REWRITE'), ('REMOVE')) as l (label)
),

expected as (
    select
        p.reviewer_a,
        p.reviewer_b,
        sum(pa * pb) as p_e
    from (
        select
            reviewer_a,
            reviewer_b,
            label,
            avg(case when decision_a = label then 1.0 else 0.0 end) as pa,
            avg(case when decision_b = label then 1.0 else 0.0 end) as pb
        from pairs
        cross join labels
        group by reviewer_a, reviewer_b, label
    ) as p
    group by p.reviewer_a, p.reviewer_b
)

select
    {{ surrogate_key(['o.reviewer_a', 'o.reviewer_b']) }} as pair_key,
    o.reviewer_a,
    o.reviewer_b,
    cast(o.n_items as integer) as n_items,
    cast(round(o.p_o, 4) as double) as percent_agreement,
    cast(round(e.p_e, 4) as double) as expected_agreement,
    cast(case when e.p_e < 1 then round((o.p_o - e.p_e) / (1 - e.p_e), 4) end as double) as cohen_kappa
from observed as o
inner join expected as e using (reviewer_a, reviewer_b)
