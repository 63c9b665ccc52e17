{{ config(tags=['cipher_eval']) }}
-- The latest successful judgment per output x judge x reference answer (gold_hash).
with ranked as (
    select
        *,
        row_number() over (
            partition by output_run_id, output_id, judge, gold_hash
            order by written_at desc, landing_row_id
        ) as row_rank
    from {{ ref('stg_landing_cipher_eval__judgments') }}
    where status = 'ok' and accept is not null
)

select
    {{ surrogate_key(['output_run_id', 'output_id', 'judge', 'gold_hash']) }} as judgment_key,
    output_run_id,
    output_id,
    judge,
    judge_model,
    rubric_version,
    gold_hash,
    m1,
    accept,
    reason,
    written_at
from ranked
where row_rank = 1
