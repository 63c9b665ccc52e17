{# Automatic audit pre-labels per instance. Every CIPHER operation selects qualifying records, so a
   non-empty support set is required in both conditions. #}
with gold as (
    select
        instance_id,
        bool_and(status <> 'error') as executes,
        bool_and(n_support > 0) as support_nonempty,
        bool_and(answer_json is not null and answer_json not in ('null', '[]', '""')) as answer_nondegenerate,
        bool_or(narrative_sensitive) as narrative_sensitive,
        string_agg(distinct error, '; ') as errors
    from {{ ref('int_cipher_gold_executed') }}
    group by instance_id
),

labelled as (
    select
        i.instance_id,
        i.domain,
        i.template_id,
        i.template_error is null as template_valid,
        coalesce(g.executes, false) as executes,
        coalesce(g.support_nonempty, false) as support_nonempty,
        coalesce(g.answer_nondegenerate, false) as answer_nondegenerate,
        coalesce(i.is_hybrid, false) as is_hybrid,
        coalesce(g.narrative_sensitive, false) as narrative_sensitive,
        coalesce(i.template_error, g.errors) as error
    from {{ ref('int_cipher_instances_rendered') }} as i
    left join gold as g using (instance_id)
)

select
    *,
    case
        when not template_valid or not executes then 'REMOVE'
        when not (support_nonempty and answer_nondegenerate and is_hybrid and narrative_sensitive) then 'REWRITE'
        else 'APPROVE'
    end as auto_label,
    nullif(concat_ws('; ',
        case when not template_valid then 'template invalid: ' || error end,
        case when template_valid and not executes then 'execution failed: ' || error end,
        case when not support_nonempty then 'empty support in a condition' end,
        case when not answer_nondegenerate then 'degenerate (null or empty) answer in a condition' end,
        case when not is_hybrid then 'not hybrid by column lineage' end,
        case when not narrative_sensitive then 'answer unchanged when narrative predicates are dropped' end
    ), '') as auto_reason
from labelled
