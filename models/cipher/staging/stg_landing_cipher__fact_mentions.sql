select
    {{ surrogate_key(['item_id']) }} as mention_key,
    domain,
    record_id,
    fact,
    cast(mention_index as integer) as mention_index,
    field,
    polarity,
    cast(value as varchar) as value_json,
    visible_redacted,
    cast(value_restored as varchar) as value_restored_json
from {{ source('landing_cipher', 'cipher_fact_mentions') }}
where run_id = {{ latest_finished_run('cipher.generate') }}
