{{ config(tags=['cipher_eval']) }}
select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    method,
    prompt_version,
    system_template,
    user_template,
    written_at
from {{ source('landing_cipher_eval', 'cipher_eval_prompts') }}
