{# Table 1 for what was built: benchmark instances (in_benchmark) and the redacted records. #}
with inst as (
    select * from {{ ref('cipher_instances') }} where in_benchmark
),

n as (
    select domain, count(*) as n from inst group by domain
),

stats as (
    select domain, 'questions' as section, 'questions' as statistic, cast(count(*) as double) as value
    from inst group by domain
    union all
    select domain, 'questions', 'avg_question_length', round(avg(question_words), 1)
    from inst group by domain
    union all
    select i.domain, 'operation_pct', i.operation, round(100.0 * count(*) / any_value(n.n), 1)
    from inst as i inner join n using (domain) group by i.domain, i.operation
    union all
    select i.domain, 'answer_type_pct', i.answer_type, round(100.0 * count(*) / any_value(n.n), 1)
    from inst as i inner join n using (domain) group by i.domain, i.answer_type
    union all
    select domain, 'record_representation', 'structured_columns', cast(count(*) filter (where kind = 'structured') as double)
    from {{ ref('cipher_domain_columns') }} group by domain
    union all
    select domain, 'record_representation', 'narrative_columns', cast(count(*) filter (where kind = 'narrative') as double)
    from {{ ref('cipher_domain_columns') }} group by domain
    union all
    select domain, 'record_representation', 'avg_narrative_words', round(avg(narrative_words), 0)
    from {{ ref('cipher_records') }} where condition = 'redacted' group by domain
    union all
    select domain, 'record_representation', 'records', cast(count(*) as double)
    from {{ ref('cipher_records') }} where condition = 'redacted' group by domain
)

select
    {{ surrogate_key(['s.domain', 's.section', 's.statistic']) }} as stat_key,
    s.domain,
    s.section,
    s.statistic,
    s.value,
    cast(p.paper_value as double) as paper_value
from stats as s
left join {{ ref('cipher_paper_table1') }} as p using (domain, section, statistic)
