{{ config(tags=['cipher_eval']) }}
-- Public mart: distribution of dominant failure labels by operation (Figure 6).
-- Populations: 'all_failures' counts every failed output (M3 = 0); 'sample_majority_failed'
-- counts questions of the 30% domain-stratified sample (seed 42) that a majority of the scoped
-- outputs failed, each with its most frequent failure label (ties: the order of `labels`).
-- oracle-sql is never in scope (it is a pipeline check).
with labels as (
    select * from (values
        (1, 'evidence_selection'), (2, 'predicate_interpretation'), (3, 'aggregation_count'),
        (4, 'entity_grounding'), (5, 'other')
    ) as t (label_order, failure_label)
),

scores as (
    select * from {{ ref('cipher_scores') }} where system <> 'oracle-sql'
),

scoped as (
    select system as system_scope, * from scores
    union all
    select '(all non-oracle)' as system_scope, * from scores
    union all
    select '(all llm)' as system_scope, * from scores where model <> 'builtin'
),

all_failures as (
    select 'all_failures' as population, system_scope, setting, condition, domain, operation, failure_label
    from scoped
    where failed
),

questions as (
    select
        system_scope, setting, condition, instance_id, domain, operation,
        count(*) as n_outputs,
        count(*) filter (where failed) as n_failed
    from scoped
    where in_failure_sample
    group by system_scope, setting, condition, instance_id, domain, operation
),

question_labels as (
    select
        s.system_scope, s.setting, s.condition, s.instance_id, s.failure_label,
        row_number() over (
            partition by s.system_scope, s.setting, s.condition, s.instance_id
            order by count(*) desc, min(l.label_order)
        ) as label_rank
    from scoped as s
    inner join labels as l on l.failure_label = s.failure_label
    where s.in_failure_sample and s.failed
    group by s.system_scope, s.setting, s.condition, s.instance_id, s.failure_label
),

majority_failed as (
    select
        'sample_majority_failed' as population, q.system_scope, q.setting, q.condition, q.domain,
        q.operation, ql.failure_label
    from questions as q
    inner join question_labels as ql
        on ql.system_scope = q.system_scope and ql.setting = q.setting
        and ql.condition = q.condition and ql.instance_id = q.instance_id
    where ql.label_rank = 1 and 2 * q.n_failed > q.n_outputs
),

units as (
    select * from all_failures
    union all
    select * from majority_failed
),

expanded as (
    select population, system_scope, setting, condition, domain, operation, failure_label from units
    union all
    select population, system_scope, setting, condition, '(all)', operation, failure_label from units
    union all
    select population, system_scope, setting, condition, domain, '(all)', failure_label from units
    union all
    select population, system_scope, setting, condition, '(all)', '(all)', failure_label from units
),

cells as (
    select distinct population, system_scope, setting, condition, domain, operation from expanded
),

grid as (
    select c.*, l.failure_label, l.label_order from cells as c cross join labels as l
),

counted as (
    select
        g.population, g.system_scope, g.setting, g.condition, g.domain, g.operation,
        g.failure_label, g.label_order,
        count(e.failure_label) as n
    from grid as g
    left join expanded as e
        on e.population = g.population and e.system_scope = g.system_scope and e.setting = g.setting
        and e.condition = g.condition and e.domain = g.domain and e.operation = g.operation
        and e.failure_label = g.failure_label
    group by all
)

select
    cast({{ surrogate_key(['population', 'system_scope', 'setting', 'condition', 'domain', 'operation', 'failure_label']) }} as varchar) as failure_key,
    cast(population as varchar) as population,
    cast(system_scope as varchar) as system_scope,
    cast(setting as varchar) as setting,
    cast(condition as varchar) as condition,
    cast(domain as varchar) as domain,
    cast(operation as varchar) as operation,
    cast(failure_label as varchar) as failure_label,
    cast(label_order as integer) as label_order,
    cast(n as bigint) as n,
    cast(sum(n) over (partition by population, system_scope, setting, condition, domain, operation) as bigint) as n_cell_total,
    cast(100.0 * n / nullif(sum(n) over (partition by population, system_scope, setting, condition, domain, operation), 0) as double) as share_pct
from counted
