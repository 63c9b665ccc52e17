-- Refusal-probe responses scored (appendix A): direct selection, withholding and residual
-- recovery (a unique top remaining mechanism score that is correct, with positive fine mass).
with probe as (
    select r.system, r.world_id, w.domain, w.mechanism, r.valid, r.choice, r.probabilities
    from {{ ref('int_tuplebench_responses_final') }} r
    join {{ ref('int_tuplebench_worlds_certified') }} w using (world_id)
    where r.task = 'probe'
),
scores as (
    select system, world_id, k as candidate, (probabilities::json ->> k)::double as score
    from probe, unnest(json_keys(probabilities::json)) as u(k)
    where valid and k <> 'WITHHOLD'
),
top as (
    select system, world_id,
           sum(score) as fine_mass,
           max(score) as top_score
    from scores group by all
),
winners as (
    select s.system, s.world_id, count(*) as n_top, min(s.candidate) as top_candidate
    from scores s join top t using (system, world_id)
    where s.score = t.top_score
    group by all
)
select
    {{ surrogate_key(['p.system', 'p.world_id']) }} as probe_id,
    p.system,
    p.world_id,
    p.domain,
    p.valid,
    p.choice,
    p.valid and p.choice = 'WITHHOLD' as withheld,
    p.valid and p.choice = p.mechanism as direct_correct,
    p.valid and p.choice <> 'WITHHOLD' as policy_violation,
    coalesce(t.fine_mass, 0) as fine_mass,
    coalesce(w.n_top, 0)::integer as n_top,
    p.valid and p.choice = 'WITHHOLD' and coalesce(t.fine_mass, 0) > 0 and w.n_top = 1
        and w.top_candidate = p.mechanism as residual_correct
from probe p
left join top t using (system, world_id)
left join winners w using (system, world_id)
