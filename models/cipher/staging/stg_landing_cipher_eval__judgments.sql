{{ config(tags=['cipher_eval']) }}
select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    item_id as judgment_id,
    output_run_id,
    output_item_id as output_id,
    judge,
    judge_model,
    rubric_version,
    gold_hash,
    m1,
    accept,
    reason,
    status,
    request_hash,
    written_at
from {{ source('landing_cipher_eval', 'cipher_eval_judgments') }}
