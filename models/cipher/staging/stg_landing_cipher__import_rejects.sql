select
    {{ surrogate_key(['run_id', 'item_id']) }} as reject_key,
    run_id,
    domain,
    source_file,
    cast(source_row as integer) as source_row,
    field,
    reason,
    written_at
from {{ source('landing_cipher', 'cipher_import_rejects') }}
