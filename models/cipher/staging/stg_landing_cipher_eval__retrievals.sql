{{ config(tags=['cipher_eval']) }}
select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    item_id as retrieval_id,
    retriever,
    instance_id,
    domain,
    condition,
    setting,
    cast(ranked_ids as varchar) as ranked_ids_json,
    cast(scores as varchar) as scores_json,
    written_at
from {{ source('landing_cipher_eval', 'cipher_eval_retrievals') }}
