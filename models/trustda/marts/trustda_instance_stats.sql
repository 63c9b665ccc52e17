-- Paper Table 8 for what was built, plus acceptance: one row per dataset x operator
-- (dataset 'total' sums both), with the paper's counts alongside.
with ops as (
    select * from {{ ref('trustda_operators') }}
),
datasets as (
    select distinct dataset from {{ ref('trustda_source_tasks') }}
    union all select 'total'
),
cand as (
    select dataset, operator, verdict, source_task_id from {{ ref('trustda_candidates') }}
    union all
    select 'total', operator, verdict, source_task_id from {{ ref('trustda_candidates') }}
),
agg as (
    select dataset, operator,
           count(*) as candidates,
           count(*) filter (where verdict <> 'Rejected') as accepted,
           count(distinct source_task_id) filter (where verdict <> 'Rejected') as source_tasks_covered
    from cand group by dataset, operator
)
select
    d.dataset,
    o.operator,
    o.operator_code,
    o.track,
    o.level,
    coalesce(a.candidates, 0)::integer as candidates,
    coalesce(a.accepted, 0)::integer as accepted,
    case when coalesce(a.candidates, 0) > 0 then a.accepted::double / a.candidates end as acceptance_rate,
    coalesce(a.source_tasks_covered, 0)::integer as source_tasks_covered,
    case d.dataset when 'total' then p.paper_total when 'dabench' then p.paper_dabench
         else p.paper_aidabench_qa end::integer as paper_accepted
from datasets d
cross join ops o
left join agg a on a.dataset = d.dataset and a.operator = o.operator
left join {{ ref('trustda_paper_table8') }} p on p.operator_code = o.operator_code
