"""The whole dbt project builds on an empty landing zone: a fresh clone's first `dbt build`.

Every benchmark's models, seeds, contracts and tests must cope with a benchmark whose data has
not been generated yet (e.g. `evalhouse run-all -b cipher` builds the project with only CIPHER data).
"""
import duckdb

from evalhouse.dbt_runner import dbt_build


def test_whole_project_builds_with_no_data(warehouse):
    summary = dbt_build()
    assert summary["nodes"] > 100
    with duckdb.connect(str(warehouse.db), read_only=True) as con:
        marts = {r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()}
    for mart in ("runs", "llm_usage", "cipher_instances", "trustda_instances", "tuplebench_recovery"):
        assert mart in marts
