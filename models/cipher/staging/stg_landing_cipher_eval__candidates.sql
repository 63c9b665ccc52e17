{{ config(tags=['cipher_eval']) }}
select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    instance_id,
    domain,
    condition,
    setting,
    cast(candidate_ids as varchar) as candidate_ids_json,
    structured_sql,
    status,
    error,
    written_at
from {{ source('landing_cipher_eval', 'cipher_eval_candidates') }}
