-- Recovery statistics of the latest finished decode run (tuplebench.decode).
select
    {{ surrogate_key(['variant', 'system', 'domain', 'view', 'metric']) }} as stat_id,
    variant, system, domain, view, metric, estimate, ci_low, ci_high,
    n_pairs, n_worlds, decoder, bootstrap_resamples, run_id as decode_run_id
from {{ ref('stg_landing_tuplebench__recovery_stats') }}
where run_id = {{ latest_finished_run('tuplebench.decode') }}
