select
    run_id,
    item_id,
    system,
    domain,
    view,
    variant,
    task,
    profile,
    estimator,
    validation_costs,
    cost_matrix,
    check_cost,
    written_at
from {{ source('landing_tuplebench', 'tuplebench_policies') }}
