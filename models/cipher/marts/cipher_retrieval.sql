{{ config(tags=['cipher_eval']) }}
-- Public mart: retrieval recall@k against the support set (mean over benchmark instances whose
-- context has at least one supporting record), per run x retriever x k x condition x setting x domain.
with recall as (
    select r.*
    from {{ ref('int_cipher_retrieval_recall') }} as r
    inner join {{ ref('cipher_instances') }} as i on i.instance_id = r.instance_id and i.in_benchmark
),

aggregated as (
    select
        run_id, retriever, k, condition, setting,
        coalesce(domain, '(all)') as domain,
        count(recall_at_k) as n_instances,
        100 * avg(recall_at_k) as mean_recall,
        100 * avg(case when recall_at_k = 1 then 1.0 else 0.0 end) filter (where recall_at_k is not null) as full_recall_rate,
        avg(n_support) filter (where n_support > 0) as mean_support
    from recall
    group by grouping sets ((run_id, retriever, k, condition, setting, domain), (run_id, retriever, k, condition, setting))
)

select
    cast({{ surrogate_key(['run_id', 'retriever', 'k', 'condition', 'setting', 'domain']) }} as varchar) as retrieval_key,
    cast(run_id as varchar) as run_id,
    cast(retriever as varchar) as retriever,
    cast(k as integer) as k,
    cast(condition as varchar) as condition,
    cast(setting as varchar) as setting,
    cast(domain as varchar) as domain,
    cast(n_instances as bigint) as n_instances,
    cast(mean_recall as double) as mean_recall,
    cast(full_recall_rate as double) as full_recall_rate,
    cast(mean_support as double) as mean_support
from aggregated
