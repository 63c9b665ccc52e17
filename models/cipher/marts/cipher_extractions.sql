select extraction_key, run_id, domain, record_id, source_file, model, schema_name, annotation_json, status, error, review_status, request_hash
from {{ ref('stg_landing_cipher__extractions') }}
