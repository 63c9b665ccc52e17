select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    item_id as correctness_id,
    output_run_id,
    output_id,
    rule,
    counted_official,
    correct_official,
    correct_strict,
    sub_correct,
    extracted,
    written_at
from {{ source('landing_trustda_eval', 'trustda_eval_correctness') }}
