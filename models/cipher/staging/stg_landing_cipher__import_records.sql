select
    {{ surrogate_key(['domain', 'record_id']) }} as import_key,
    run_id,
    domain,
    source_format,
    source_file,
    cast(source_row as integer) as source_row,
    record_id,
    cast(fields as varchar) as fields_json,
    narrative,
    written_at
from {{ source('landing_cipher', 'cipher_import_records') }}
qualify row_number() over (partition by domain, record_id order by written_at desc) = 1
