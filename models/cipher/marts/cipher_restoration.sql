{{ config(tags=['cipher_eval']) }}
-- Public mart: effect of restoration, delta M = M(restored) - M(redacted), on the paired set
-- (questions whose reference stays supported in both conditions, scored in both conditions by
-- the same run, system and model). Figure 5 and Table 6.
with scores as (
    select * from {{ ref('cipher_scores') }} where in_paired_eval
),

paired as (
    select
        red.run_id, red.system, red.family, red.model, red.setting, red.domain, red.instance_id,
        red.m1 as m1_red, red.m2 as m2_red, red.m3 as m3_red,
        rest.m1 as m1_rest, rest.m2 as m2_rest, rest.m3 as m3_rest
    from scores as red
    inner join scores as rest
        on rest.run_id = red.run_id and rest.system = red.system and rest.model = red.model
        and rest.setting = red.setting and rest.instance_id = red.instance_id
        and rest.condition = 'restored'
    where red.condition = 'redacted'
),

aggregated as (
    select
        run_id, system, family, model, setting,
        coalesce(domain, '(all)') as domain,
        count(*) as n_paired,
        100 * avg(m1_red) as m1_redacted, 100 * avg(m1_rest) as m1_restored,
        100 * avg(m2_red) as m2_redacted, 100 * avg(m2_rest) as m2_restored,
        100 * avg(m3_red) as m3_redacted, 100 * avg(m3_rest) as m3_restored
    from paired
    group by grouping sets ((run_id, system, family, model, setting, domain), (run_id, system, family, model, setting))
)

select
    cast({{ surrogate_key(['run_id', 'system', 'model', 'setting', 'domain']) }} as varchar) as restoration_key,
    cast(run_id as varchar) as run_id,
    cast(system as varchar) as system,
    cast(family as varchar) as family,
    cast(model as varchar) as model,
    cast(setting as varchar) as setting,
    cast(domain as varchar) as domain,
    cast(n_paired as bigint) as n_paired,
    cast(m1_redacted as double) as m1_redacted,
    cast(m1_restored as double) as m1_restored,
    cast(m1_restored - m1_redacted as double) as delta_m1,
    cast(m2_redacted as double) as m2_redacted,
    cast(m2_restored as double) as m2_restored,
    cast(m2_restored - m2_redacted as double) as delta_m2,
    cast(m3_redacted as double) as m3_redacted,
    cast(m3_restored as double) as m3_restored,
    cast(m3_restored - m3_redacted as double) as delta_m3
from aggregated
