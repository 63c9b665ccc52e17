-- Privacy-utility points per task at the base cost profile: pooled recovery (part 1) against
-- mean downstream cost; a point is non-dominated when no other point has recovery and cost
-- both at most its own with one strictly lower (descriptive, unrounded means).
with points as (
    select u.task, u.system, u.view, u.view_order, r.recovery, r.recovery_ci_low, r.recovery_ci_high,
           u.mean_cost, u.mean_cost_ci_low, u.mean_cost_ci_high
    from {{ ref('tuplebench_utility') }} u
    join {{ ref('tuplebench_recovery') }} r
      on r.system = u.system and r.view = u.view and r.domain = 'all'
    where u.profile = 'base'
)
select
    {{ surrogate_key(['p.task', 'p.system', 'p.view']) }} as frontier_id,
    p.task, p.system, p.view, p.view_order,
    p.recovery, p.recovery_ci_low, p.recovery_ci_high,
    p.mean_cost, p.mean_cost_ci_low, p.mean_cost_ci_high,
    not exists (
        select 1 from points q
        where q.task = p.task and q.recovery <= p.recovery and q.mean_cost <= p.mean_cost
          and (q.recovery < p.recovery or q.mean_cost < p.mean_cost)
    ) as non_dominated,
    case when p.view = 'full_native' then not exists (
        select 1 from points q
        where q.task = p.task and q.view = 'full_native' and q.recovery <= p.recovery and q.mean_cost <= p.mean_cost
          and (q.recovery < p.recovery or q.mean_cost < p.mean_cost)
    ) end as non_dominated_among_full_native
from points p
