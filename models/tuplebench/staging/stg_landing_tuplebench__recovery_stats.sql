select
    run_id,
    item_id,
    system,
    domain,
    view,
    variant,
    metric,
    estimate,
    ci_low,
    ci_high,
    n_pairs,
    n_worlds,
    decoder,
    bootstrap_resamples,
    written_at
from {{ source('landing_tuplebench', 'tuplebench_recovery_stats') }}
