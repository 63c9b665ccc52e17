-- Paper Table 1 for what was built: one row per track x dataset.
with inst as (
    select * from {{ ref('trustda_instances') }}
),
src as (
    select * from {{ ref('trustda_source_tasks') }}
),
profiles as (
    select s.source_task_id,
           unnest(from_json(s.table_profile, '[{"table": "VARCHAR", "rows": "BIGINT", "cols": "BIGINT"}]'), recursive := true)
    from src s
),
tracks as (
    select distinct track from {{ ref('trustda_operators') }}
),
per_dataset as (
    select t.track, d.dataset from tracks t cross join (select distinct dataset from src) d
),
inst_tables as (
    select i.track, i.dataset, i.instance_id, p.rows, p.cols, p."table"
    from inst i join profiles p using (source_task_id)
)
select
    pd.track,
    pd.dataset,
    (select count(*) from inst i where i.track = pd.track and i.dataset = pd.dataset)::integer as instances,
    (select count(distinct source_task_id) from inst i where i.track = pd.track and i.dataset = pd.dataset)::integer as sources_covered,
    (select count(*) from src s where s.dataset = pd.dataset)::integer as sources_total,
    (select count(distinct source_task_id) from inst i where i.track = pd.track and i.dataset = pd.dataset)::double
        / nullif((select count(*) from src s where s.dataset = pd.dataset), 0) as coverage,
    (select count(*) from inst i where i.track = pd.track and i.dataset = pd.dataset)::double
        / nullif((select count(distinct source_task_id) from inst i where i.track = pd.track and i.dataset = pd.dataset), 0) as avg_per_source,
    (select count(*) from inst i join src s using (source_task_id)
        where i.track = pd.track and i.dataset = pd.dataset and s.file_kind = 'xlsx')::integer as excel_instances,
    (select count(*) from inst i join src s using (source_task_id)
        where i.track = pd.track and i.dataset = pd.dataset and s.file_kind <> 'xlsx')::integer as csv_instances,
    (select count(distinct operator) from inst i where i.track = pd.track and i.dataset = pd.dataset)::integer as perturbation_types,
    (select count(distinct package_hash) from inst i where i.track = pd.track and i.dataset = pd.dataset)::integer as instance_packages,
    (select avg(rows) from inst_tables x where x.track = pd.track and x.dataset = pd.dataset) as rows_avg,
    (select max(rows) from inst_tables x where x.track = pd.track and x.dataset = pd.dataset)::bigint as rows_max,
    (select avg(cols) from inst_tables x where x.track = pd.track and x.dataset = pd.dataset) as cols_avg,
    (select max(cols) from inst_tables x where x.track = pd.track and x.dataset = pd.dataset)::bigint as cols_max
from per_dataset pd
