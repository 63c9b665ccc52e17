-- Every candidate of the latest generation run, accepted or rejected, with its three protocols.
select
    candidate_id,
    case when verdict <> 'Rejected' then candidate_id end as instance_id,
    source_task_id,
    dataset,
    operator,
    operator_code,
    track,
    level,
    builder,
    verdict,
    failure_category,
    failure_reason,
    selection_protocol,
    construction_protocol,
    validation_protocol,
    package_hash,
    human_votes,
    human_valid_share
from {{ ref('int_trustda_candidates_verified') }}
