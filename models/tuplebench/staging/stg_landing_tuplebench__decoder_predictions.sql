select
    run_id,
    item_id,
    system,
    domain,
    view,
    variant,
    world_id,
    pair_id,
    split,
    decoder,
    score,
    predicted_b,
    correct,
    written_at
from {{ source('landing_tuplebench', 'tuplebench_decoder_predictions') }}
