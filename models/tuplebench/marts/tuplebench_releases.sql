-- The five release views of every saved native coarse response, derived here from the same
-- response: no output, choice, choice + confidence, choice + probabilities, full native.
-- A field a view does not release is NULL. status_signal is common to every view.
with responses as (
    select * from {{ ref('tuplebench_responses') }}
),
views as (
    select * from (values
        ('no_output', 1, false, false, false),
        ('choice', 2, true, false, false),
        ('choice_confidence', 3, true, true, false),
        ('choice_probabilities', 4, true, false, true),
        ('full_native', 5, true, true, true)
    ) as v(view, view_order, has_choice, has_confidence, has_probabilities)
)
select
    {{ surrogate_key(['r.system', 'r.world_id', 'v.view']) }} as release_id,
    r.system,
    r.world_id,
    v.view,
    v.view_order::integer as view_order,
    case when r.valid then 'ok' else 'invalid' end as status_signal,
    case when v.has_choice and r.valid then r.choice end as released_choice,
    case when v.has_confidence and r.valid then r.confidence end as released_confidence,
    case when v.has_probabilities and r.valid then r.probability_vector end as released_probabilities,
    v.has_choice as releases_choice,
    v.has_confidence as releases_confidence,
    v.has_probabilities as releases_probabilities
from responses r
cross join views v
