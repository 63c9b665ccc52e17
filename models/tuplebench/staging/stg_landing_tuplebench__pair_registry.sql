select
    run_id,
    item_id,
    pair_id,
    domain,
    coarse_category,
    hypothesis_a,
    hypothesis_b,
    world0_mechanism,
    world1_mechanism,
    split,
    pair_seed,
    registered_order,
    written_at
from {{ source('landing_tuplebench', 'tuplebench_pair_registry') }}
