{{ config(tags=['cipher_eval']) }}
-- Public mart: agreement of M2 judges (Table 7): LLM judge vs rule judge whenever both judged an
-- output, and each judge vs human labels when they exist. Cohen's kappa on the binary decision.
with scores as (
    select run_id, output_id, domain, m2_rule, m2_llm from {{ ref('cipher_scores') }}
),

human as (
    select output_run_id, output_id, annotator, case when accept then 1 else 0 end as m2_human
    from (
        select
            *,
            row_number() over (
                partition by output_run_id, output_id, annotator order by written_at desc, landing_row_id
            ) as row_rank
        from {{ ref('stg_landing_cipher_eval__human_labels') }}
    )
    where row_rank = 1 and accept is not null
),

pairs as (
    select 'llm_vs_rule' as comparison, domain, m2_llm as a, m2_rule as b
    from scores where m2_llm is not null
    union all
    select 'llm_vs_human', s.domain, s.m2_llm, h.m2_human
    from scores as s inner join human as h on h.output_run_id = s.run_id and h.output_id = s.output_id
    where s.m2_llm is not null
    union all
    select 'rule_vs_human', s.domain, s.m2_rule, h.m2_human
    from scores as s inner join human as h on h.output_run_id = s.run_id and h.output_id = s.output_id
),

expanded as (
    select comparison, domain, a, b from pairs
    union all
    select comparison, '(all)', a, b from pairs
),

stats as (
    select
        comparison,
        domain,
        count(*) as n_pairs,
        avg(case when a = b then 1.0 else 0.0 end) as observed,
        avg(a) * avg(b) + (1 - avg(a)) * (1 - avg(b)) as expected
    from expanded
    group by comparison, domain
)

select
    cast({{ surrogate_key(['comparison', 'domain']) }} as varchar) as agreement_key,
    cast(comparison as varchar) as comparison,
    cast(domain as varchar) as domain,
    cast(n_pairs as bigint) as n_pairs,
    cast(100 * observed as double) as agreement_pct,
    cast(case when expected >= 1 then null else (observed - expected) / (1 - expected) end as double) as cohen_kappa
from stats
