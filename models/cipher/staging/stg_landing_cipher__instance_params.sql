select
    item_id as instance_id,
    domain,
    template_id,
    cast(seq as integer) as seq,
    cast(params as varchar) as params_json
from {{ source('landing_cipher', 'cipher_instance_params') }}
where run_id = {{ latest_finished_run('cipher.generate') }}
