-- The saved native response of each system, task and world (latest run answering the current
-- worlds), with its attempt counts. Invalid finals stay invalid: nothing is repaired.
with attempts as (
    select * from {{ ref('stg_landing_tuplebench__responses') }}
    where generation_run_id = {{ latest_finished_run('tuplebench.generate') }}
),
final as (
    select * from attempts
    where is_final
    qualify row_number() over (partition by system, task, world_id order by written_at desc, run_id desc) = 1
),
counts as (
    select a.system, a.task, a.world_id,
           count(*) as n_attempts,
           count(*) filter (where not a.valid) as n_invalid_attempts
    from attempts a
    join final f on f.run_id = a.run_id and f.system = a.system and f.task = a.task and f.world_id = a.world_id
    group by all
)
select
    {{ surrogate_key(['f.system', 'f.task', 'f.world_id']) }} as response_id,
    f.system,
    f.system_kind,
    f.task,
    f.world_id,
    f.valid,
    f.invalid_reason,
    f.choice,
    f.probabilities,
    f.confidence,
    f.raw_text,
    f.request_hash,
    c.n_attempts::integer as n_attempts,
    c.n_invalid_attempts::integer as n_invalid_attempts,
    f.run_id as response_run_id
from final f
join counts c using (system, task, world_id)
