select
    {{ surrogate_key(['instance_id', 'condition']) }} as gold_key,
    instance_id,
    condition,
    answer_json,
    support_ids,
    cast(n_support as integer) as n_support,
    status,
    error
from {{ ref('int_cipher_gold_executed') }}
