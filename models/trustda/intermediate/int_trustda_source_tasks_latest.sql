-- Source tasks of the newest finished generation run (a regeneration replaces the set).
select *
from {{ ref('stg_landing_trustda__source_tasks') }}
where run_id = {{ latest_finished_run('trustda.generate') }}
