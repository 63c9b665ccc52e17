-- One saved native coarse-decision response per system and world, with its attempt accounting.
with worlds as (
    select * from {{ ref('int_tuplebench_worlds_certified') }}
)
select
    r.response_id,
    r.system,
    r.system_kind,
    r.world_id,
    w.pair_id,
    w.domain,
    w.split,
    r.valid,
    r.invalid_reason,
    r.choice,
    r.probabilities,
    case when r.valid then list_transform(json_extract_string(w.candidates, '$[*].id'),
                                          lambda c: (r.probabilities::json ->> c)::double) end as probability_vector,
    r.confidence,
    r.valid and r.choice = w.coarse_category as choice_correct,
    r.n_attempts,
    r.n_invalid_attempts,
    r.request_hash,
    r.response_run_id
from {{ ref('int_tuplebench_responses_final') }} r
join worlds w using (world_id)
where r.task = 'coarse'
