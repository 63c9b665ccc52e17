-- Public (paper Table 9 and the four failure forms): no-refusal replies to reliability instances
-- per system, model, dataset ('all' pools both) and the evidence-verification stage their operator
-- maps to, with the stage's share of all no-refusals (percent) beside the paper's share.
with failures as (
    select *
    from {{ ref('int_trustda_eval_outputs_scored') }}
    where track = 'reliability' and reliability_mode = 'none'
),
counts as (
    select
        system, model, coalesce(dataset, 'all') as dataset, operator_code,
        count(*) as n_no_refusal,
        count(*) filter (where failure_form = 'silent_unsupported') as n_silent_unsupported,
        count(*) filter (where failure_form = 'recognized_overridden') as n_recognized_overridden,
        count(*) filter (where failure_form = 'exhausted') as n_exhausted,
        count(*) filter (where failure_form = 'empty_unusable') as n_empty_unusable
    from failures
    group by grouping sets ((system, model, dataset, operator_code), (system, model, operator_code))
)
select
    {{ surrogate_key(['c.system', 'c.model', 'c.dataset', 'c.operator_code']) }} as failure_stage_key,
    c.system,
    c.model,
    c.dataset,
    ops.failure_stage,
    c.operator_code,
    c.n_no_refusal,
    100.0 * c.n_no_refusal / sum(c.n_no_refusal) over (partition by c.system, c.model, c.dataset) as share,
    ops.paper_stage_share_pct as paper_share,
    c.n_silent_unsupported,
    c.n_recognized_overridden,
    c.n_exhausted,
    c.n_empty_unusable
from counts as c
left join {{ ref('int_trustda_eval_operator_catalog') }} as ops using (operator_code)
