-- One row per world of the current benchmark (latest finished generation run).
select
    world_id,
    pair_id,
    world_index::integer as world_index,
    domain,
    split,
    coarse_category,
    mechanism,
    hypothesis_a,
    hypothesis_b,
    mechanism_is_b,
    public_context,
    private_evidence,
    candidates,
    recipient_contract,
    check_laws,
    costs,
    generator,
    certificate_passed,
    certificate_failed_checks,
    qc_verdict,
    generation_run_id
from {{ ref('int_tuplebench_worlds_certified') }}
