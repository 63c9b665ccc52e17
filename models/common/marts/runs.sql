-- One row per run: its kind, config, code version, first start, last event and counts.
with events as (
    select * from {{ ref('stg_landing__run_events') }}
),
last_event as (
    select * from events
    qualify row_number() over (partition by run_id order by event_at desc, event_id desc) = 1
),
first_start as (
    select run_id, min(event_at) as started_at, count(*) filter (where event = 'started') as starts
    from events group by run_id
)
select
    l.run_id,
    l.kind,
    l.benchmark,
    l.config,
    l.code_version,
    f.started_at,
    case when l.event = 'finished' then l.event_at end as finished_at,
    case when l.event = 'started' then 'running or interrupted' else l.event end as status,
    f.starts::integer as starts,
    l.counts,
    l.error
from last_event l
join first_start f using (run_id)
