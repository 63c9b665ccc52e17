select
    run_id,
    item_id,
    system,
    view,
    variant,
    task,
    profile,
    world_id,
    pair_id,
    domain,
    plan,
    realized_cost,
    oracle_cost,
    written_at
from {{ source('landing_tuplebench', 'tuplebench_workflow_outcomes') }}
