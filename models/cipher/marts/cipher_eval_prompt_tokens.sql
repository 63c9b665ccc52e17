{{ config(tags=['cipher_eval']) }}
-- Public mart: prompt size per LLM method (tokens per rendered prompt), the cost driver of an
-- LLM run, per prompt version x method x condition x setting x domain ('(all)' = every domain).
with latest as (
    select *
    from (
        select
            *,
            row_number() over (
                partition by prompt_version, method, instance_id, condition, setting
                order by written_at desc, landing_row_id
            ) as row_rank
        from {{ ref('stg_landing_cipher_eval__prompt_sizes') }}
    )
    where row_rank = 1
),

aggregated as (
    select
        prompt_version, method, condition, setting,
        coalesce(domain, '(all)') as domain,
        any_value(tokenizer) as tokenizer,
        count(*) as n_prompts,
        avg(prompt_tokens) as mean_tokens,
        quantile_cont(prompt_tokens, 0.5) as median_tokens,
        quantile_cont(prompt_tokens, 0.95) as p95_tokens,
        max(prompt_tokens) as max_tokens
    from latest
    group by grouping sets ((prompt_version, method, condition, setting, domain), (prompt_version, method, condition, setting))
)

select
    cast({{ surrogate_key(['prompt_version', 'method', 'condition', 'setting', 'domain']) }} as varchar) as prompt_tokens_key,
    cast(prompt_version as varchar) as prompt_version,
    cast(method as varchar) as method,
    cast(condition as varchar) as condition,
    cast(setting as varchar) as setting,
    cast(domain as varchar) as domain,
    cast(tokenizer as varchar) as tokenizer,
    cast(n_prompts as bigint) as n_prompts,
    cast(mean_tokens as double) as mean_tokens,
    cast(median_tokens as double) as median_tokens,
    cast(p95_tokens as double) as p95_tokens,
    cast(max_tokens as bigint) as max_tokens
from aggregated
