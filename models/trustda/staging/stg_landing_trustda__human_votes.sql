select
    run_id,
    item_id as vote_id,
    candidate_id,
    expert,
    valid,
    comment,
    written_at
from {{ source('landing_trustda', 'trustda_human_votes') }}
