select
    {{ surrogate_key(['domain', 'condition', 'record_id']) }} as record_key,
    domain,
    condition,
    record_id,
    fields_json,
    serialized,
    cast(narrative_words as integer) as narrative_words,
    empty_narrative
from {{ ref('int_cipher_records_serialized') }}
