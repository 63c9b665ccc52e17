{# md5 over the '|'-joined, null-safe text of the given expressions (a local dbt_utils stand-in). #}
{% macro surrogate_key(exprs) -%}
md5(concat_ws('|', {% for e in exprs %}coalesce(cast({{ e }} as varchar), '∅'){% if not loop.last %}, {% endif %}{% endfor %}))
{%- endmacro %}
