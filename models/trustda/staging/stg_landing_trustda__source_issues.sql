select
    run_id,
    item_id as issue_id,
    dataset,
    file,
    reason,
    written_at
from {{ source('landing_trustda', 'trustda_source_issues') }}
