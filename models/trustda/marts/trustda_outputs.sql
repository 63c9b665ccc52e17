-- Public: the current reply of every system to every item, with its reliability judgment or its
-- correctness. Grain: one row per (system, model, instance_id).
select * from {{ ref('int_trustda_eval_outputs_scored') }}
