select
    run_id,
    item_id as event_id,
    kind,
    benchmark,
    event,
    config,
    code_version,
    counts,
    error,
    written_at as event_at
from {{ source('landing', 'run_events') }}
