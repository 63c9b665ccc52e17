{# The read_parquet expression for a landing table, used by sources' external_location.
   Kept here so the glob layout (<landing>/<table>/<run_id>/*.parquet) is written once. #}
{% macro landing_root() -%}
{{ env_var('EVALHOUSE_LANDING', 'warehouse/landing') }}
{%- endmacro %}
