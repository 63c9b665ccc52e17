{{ config(tags=['cipher_eval']) }}
-- The latest landed row of every output of every run. Errored outputs (no reply yet; a resumed
-- run retries them) are left out.
with ranked as (
    select
        *,
        row_number() over (partition by run_id, output_id order by written_at desc, landing_row_id) as row_rank
    from {{ ref('stg_landing_cipher_eval__outputs') }}
)

select
    {{ surrogate_key(['run_id', 'output_id']) }} as output_key,
    run_id,
    output_id,
    system,
    family,
    model,
    instance_id,
    domain,
    condition,
    setting,
    status,
    answer_json,
    cited_ids_json,
    raw_text,
    error,
    prompt_version,
    prompt_tokens,
    input_tokens,
    output_tokens,
    latency_ms,
    detail_json,
    written_at
from ranked
where row_rank = 1 and status <> 'error'
