{# Rows where the SQL expression is false fail the test. #}
{% test expression_is_true(model, expression) %}
select * from {{ model }} where not ({{ expression }})
{% endtest %}

{# Values outside [min_value, max_value] (nulls ignored) fail the test. #}
{% test accepted_range(model, column_name, min_value=none, max_value=none) %}
select * from {{ model }}
where {{ column_name }} is not null
  and (false
  {% if min_value is not none %} or {{ column_name }} < {{ min_value }}{% endif %}
  {% if max_value is not none %} or {{ column_name }} > {{ max_value }}{% endif %})
{% endtest %}

{# The combination of columns is unique. #}
{% test unique_combination(model, columns) %}
select {{ columns | join(', ') }}, count(*) as n
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
