select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    item_id as judgment_id,
    output_run_id,
    output_id,
    judge,
    judge_model,
    mode,
    score,
    failure_form,
    rationale,
    request_hash,
    written_at
from {{ source('landing_trustda_eval', 'trustda_eval_judgments') }}
