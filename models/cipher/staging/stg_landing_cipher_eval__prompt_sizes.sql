{{ config(tags=['cipher_eval']) }}
select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    method,
    instance_id,
    domain,
    condition,
    setting,
    prompt_version,
    prompt_tokens,
    tokenizer,
    written_at
from {{ source('landing_cipher_eval', 'cipher_eval_prompt_sizes') }}
