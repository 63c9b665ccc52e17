-- Model usage per run x model x role: requests made, cache hits, errors, tokens and cost.
select
    run_id,
    model_string as model,
    role,
    count(*) filter (where not cache_hit)::bigint as requests,
    count(distinct request_hash)::bigint as distinct_requests,
    count(*) filter (where cache_hit)::bigint as cache_hits,
    count(*) filter (where status <> 'ok' and not cache_hit)::bigint as failed_attempts,
    sum(input_tokens) filter (where not cache_hit)::bigint as input_tokens,
    sum(cached_tokens) filter (where not cache_hit)::bigint as cached_tokens,
    sum(output_tokens) filter (where not cache_hit)::bigint as output_tokens,
    sum(reasoning_tokens) filter (where not cache_hit)::bigint as reasoning_tokens,
    coalesce(sum(cost_usd) filter (where not cache_hit), 0)::double as cost_usd,
    median(latency_ms) filter (where not cache_hit)::double as median_latency_ms
from {{ ref('stg_landing__llm_calls') }}
group by all
