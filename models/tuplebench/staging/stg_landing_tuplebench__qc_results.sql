select
    run_id,
    item_id,
    pair_id,
    stage,
    verdict,
    details,
    judge_model,
    written_at
from {{ source('landing_tuplebench', 'tuplebench_qc_results') }}
