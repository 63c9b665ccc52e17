select reject_key, run_id, domain, source_file, source_row, field, reason
from {{ ref('stg_landing_cipher__import_rejects') }}
