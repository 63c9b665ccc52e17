select
    {{ surrogate_key(['domain', 'record_id']) }} as extraction_key,
    run_id,
    domain,
    record_id,
    source_file,
    model,
    schema_name,
    cast(annotation as varchar) as annotation_json,
    status,
    error,
    review_status,
    request_hash,
    written_at
from {{ source('landing_cipher', 'cipher_extractions') }}
qualify row_number() over (partition by domain, record_id order by written_at desc) = 1
