{{ config(tags=['cipher_eval']) }}
select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    item_id as label_id,
    output_run_id,
    output_item_id as output_id,
    annotator,
    accept,
    note,
    written_at
from {{ source('landing_cipher_eval', 'cipher_eval_human_labels') }}
