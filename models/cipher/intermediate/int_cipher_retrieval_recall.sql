{{ config(tags=['cipher_eval']) }}
-- Retrieval recall@k per run x retriever x instance x condition x setting x k: the share of the
-- context's supporting records found among the first k of the pool of 10.
with ranked as (
    select
        *,
        row_number() over (partition by run_id, retrieval_id order by written_at desc, landing_row_id) as row_rank
    from {{ ref('stg_landing_cipher_eval__retrievals') }}
),

pools as (
    select
        run_id, retriever, instance_id, domain, condition, setting,
        from_json(ranked_ids_json, '["VARCHAR"]') as ranked_ids
    from ranked
    where row_rank = 1
),

support as (
    select
        c.instance_id,
        c.condition,
        c.setting,
        list_filter(
            from_json(cast(c.record_ids as varchar), '["VARCHAR"]'),
            lambda x: list_contains(coalesce(from_json(cast(g.support_ids as varchar), '["VARCHAR"]'), []), x)
        ) as support_ids
    from {{ ref('cipher_contexts') }} as c
    left join {{ ref('cipher_gold') }} as g on g.instance_id = c.instance_id and g.condition = c.condition
),

ks as (
    select unnest([1, 3, 5, 10]) as k
),

recall as (
    select
        p.run_id,
        p.retriever,
        p.instance_id,
        p.domain,
        p.condition,
        p.setting,
        ks.k,
        len(s.support_ids) as n_support,
        len(list_intersect(p.ranked_ids[1:ks.k], s.support_ids)) as n_support_retrieved
    from pools as p
    inner join support as s
        on s.instance_id = p.instance_id and s.condition = p.condition and s.setting = p.setting
    cross join ks
)

select
    {{ surrogate_key(['run_id', 'retriever', 'instance_id', 'condition', 'setting', 'k']) }} as recall_key,
    *,
    case when n_support = 0 then null else n_support_retrieved::double / n_support end as recall_at_k
from recall
