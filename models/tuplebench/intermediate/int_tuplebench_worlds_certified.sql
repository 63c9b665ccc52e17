-- Worlds of the latest finished generation run, with their pair's certificate and QC verdict.
with worlds as (
    select * from {{ ref('stg_landing_tuplebench__worlds') }}
    where run_id = {{ latest_finished_run('tuplebench.generate') }}
),
certificates as (
    select run_id, pair_id, passed, failed_checks
    from {{ ref('stg_landing_tuplebench__certificates') }}
),
qc as (
    select run_id, pair_id, verdict
    from {{ ref('stg_landing_tuplebench__qc_results') }}
    where stage = 'overall'
    qualify row_number() over (partition by run_id, pair_id order by written_at desc) = 1
)
select
    w.world_id,
    w.pair_id,
    w.world_index,
    w.domain,
    w.split,
    w.coarse_category,
    w.mechanism,
    w.hypothesis_a,
    w.hypothesis_b,
    w.mechanism = w.hypothesis_b as mechanism_is_b,
    w.public_context,
    w.private_evidence,
    w.candidates,
    w.recipient_contract,
    w.check_laws,
    w.costs,
    w.generator,
    coalesce(c.passed, false) as certificate_passed,
    c.failed_checks as certificate_failed_checks,
    q.verdict as qc_verdict,
    w.run_id as generation_run_id
from worlds w
left join certificates c on c.run_id = w.run_id and c.pair_id = w.pair_id
left join qc q on q.run_id = w.run_id and q.pair_id = w.pair_id
