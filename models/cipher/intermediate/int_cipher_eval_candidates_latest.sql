{{ config(tags=['cipher_eval']) }}
-- The latest computed structured-predicate candidate set per instance x condition x setting.
with ranked as (
    select
        *,
        row_number() over (
            partition by instance_id, condition, setting order by written_at desc, landing_row_id
        ) as row_rank
    from {{ ref('stg_landing_cipher_eval__candidates') }}
    where status = 'ok'
)

select
    {{ surrogate_key(['instance_id', 'condition', 'setting']) }} as candidate_key,
    instance_id,
    domain,
    condition,
    setting,
    from_json(candidate_ids_json, '["VARCHAR"]') as candidate_ids,
    structured_sql
from ranked
where row_rank = 1
