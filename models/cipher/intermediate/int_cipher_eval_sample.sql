{{ config(tags=['cipher_eval']) }}
-- The 30% domain-stratified sample of benchmark questions (seed 42) used for Figure 6:
-- questions ranked within their domain by md5('<seed>:<instance_id>'); the first
-- round(0.3 * n) of each domain are in the sample.
with instances as (
    select instance_id, domain
    from {{ ref('cipher_instances') }}
    where in_benchmark
),

ranked as (
    select
        instance_id,
        domain,
        row_number() over (
            partition by domain order by md5('{{ var("cipher_failure_sample_seed", 42) }}:' || instance_id), instance_id
        ) as sample_rank,
        count(*) over (partition by domain) as domain_questions
    from instances
)

select
    instance_id,
    domain,
    sample_rank,
    domain_questions,
    sample_rank <= round({{ var("cipher_failure_sample_fraction", 0.3) }} * domain_questions) as in_sample
from ranked
