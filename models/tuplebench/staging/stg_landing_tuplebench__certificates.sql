select
    run_id,
    item_id,
    pair_id,
    passed,
    checks,
    failed_checks,
    written_at
from {{ source('landing_tuplebench', 'tuplebench_certificates') }}
