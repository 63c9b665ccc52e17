select
    {{ surrogate_key(['run_id', 'item_id', 'written_at']) }} as landing_row_id,
    run_id,
    item_id as step_id,
    output_id,
    step,
    role,
    content,
    tool_name,
    tool_call_id,
    tool_arguments,
    tool_status,
    request_hash,
    written_at
from {{ source('landing_trustda_eval', 'trustda_eval_trajectory_steps') }}
