select
    {{ surrogate_key(['instance_id', 'condition', 'setting']) }} as context_key,
    instance_id,
    domain,
    condition,
    setting,
    record_ids,
    cast(n_records as integer) as n_records,
    cast(n_support as integer) as n_support,
    cast(n_distractors as integer) as n_distractors,
    context_answer_json,
    distractors_verified
from {{ ref('int_cipher_contexts_built') }}
