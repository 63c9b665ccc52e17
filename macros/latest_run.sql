{# The run_id of the newest finished run of a kind, from a staged run_events relation. Generated
   datasets are read from their latest finished generation run, so a regeneration replaces them. #}
{% macro latest_finished_run(kind) -%}
(select run_id from {{ ref('runs') }} where kind = '{{ kind }}' and status = 'finished'
 order by finished_at desc, run_id limit 1)
{%- endmacro %}
