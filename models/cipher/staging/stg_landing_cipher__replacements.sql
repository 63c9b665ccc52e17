select
    {{ surrogate_key(['record_id', 'field', 'span_index']) }} as replacement_key,
    domain,
    record_id,
    field,
    cast(span_index as integer) as span_index,
    semantic_type,
    masked_text,
    surrogate,
    source_text,
    cast(red_start as integer) as red_start,
    cast(red_end as integer) as red_end
from {{ source('landing_cipher', 'cipher_replacements') }}
where run_id = {{ latest_finished_run('cipher.generate') }}
