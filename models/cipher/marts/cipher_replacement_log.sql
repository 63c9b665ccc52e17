select
    replacement_key,
    domain,
    record_id,
    field,
    span_index,
    semantic_type,
    masked_text,
    surrogate
from {{ ref('stg_landing_cipher__replacements') }}
