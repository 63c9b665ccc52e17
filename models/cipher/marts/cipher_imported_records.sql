select import_key, run_id, domain, source_format, source_file, source_row, record_id, fields_json, narrative
from {{ ref('stg_landing_cipher__import_records') }}
