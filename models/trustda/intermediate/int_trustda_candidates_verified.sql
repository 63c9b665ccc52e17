-- Candidates of the newest finished generation run, with human verification applied:
-- when votes exist, a candidate is kept only if at least 90% of them judge it valid.
with candidates as (
    select * from {{ ref('stg_landing_trustda__candidates') }}
    where run_id = {{ latest_finished_run('trustda.generate') }}
),
votes as (
    select candidate_id, count(*) as human_votes, avg(case when valid then 1.0 else 0.0 end) as human_valid_share
    from {{ ref('stg_landing_trustda__human_votes') }}
    group by candidate_id
)
select
    c.* exclude (verdict, failure_category, failure_reason),
    case when v.human_votes > 0 and v.human_valid_share < 0.9 then 'Rejected' else c.verdict end as verdict,
    case when v.human_votes > 0 and v.human_valid_share < 0.9 and c.verdict <> 'Rejected' then 'human_rejected'
         else c.failure_category end as failure_category,
    case when v.human_votes > 0 and v.human_valid_share < 0.9 and c.verdict <> 'Rejected'
         then 'fewer than 90% of ' || v.human_votes || ' expert votes judged it valid'
         else c.failure_reason end as failure_reason,
    coalesce(v.human_votes, 0)::integer as human_votes,
    v.human_valid_share
from candidates c
left join votes v using (candidate_id)
