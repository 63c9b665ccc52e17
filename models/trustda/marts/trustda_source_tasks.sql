-- One row per source task of the latest generation run, with its recomputed reference answer.
select
    t.source_task_id,
    t.dataset,
    t.question,
    t.constraints,
    t.answer_format,
    t.category,
    t.level,
    t.file_kind,
    t.files,
    t.package_path,
    t.package_hash,
    t.gold_sql,
    t.answer_names,
    a.reference_answer::varchar as reference_answer,
    a.reference_pairs::varchar as reference_pairs,
    a.answer_status::varchar as answer_status,
    (t.gold_sql is not null and a.answer_status = 'ok') as has_answer_path,
    t.steps,
    t.table_profile
from {{ ref('int_trustda_source_tasks_latest') }} t
join {{ ref('int_trustda_source_answers_recomputed') }} a using (source_task_id)
