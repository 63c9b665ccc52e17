"""The CIPHER marts after generate(scale='ci') + dbt build (session fixture cipher_ci_warehouse)."""
from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from evalhouse.cipher.domains import DOMAINS
from evalhouse.cipher.generate import SCALES
from evalhouse.cipher.sql_exec import DomainStore, execute_sql


@pytest.fixture(scope="module")
def con(cipher_ci_warehouse):
    c = duckdb.connect(str(cipher_ci_warehouse.db), read_only=True)
    yield c
    c.close()


def q(con, sql):
    return con.execute(sql).fetchall()


def test_instances_reach_the_requested_counts_and_are_hybrid(con):
    counts = dict(q(con, "select domain, count(*) from cipher_instances where in_benchmark group by domain"))
    for d, n in SCALES["ci"]["questions"].items():
        assert counts[d] >= n - 2, (d, counts)
    assert q(con, "select count(*) from cipher_instances where in_benchmark and not is_hybrid") == [(0,)]
    ops = q(con, "select count(distinct operation), count(distinct answer_type) from cipher_instances where in_benchmark")
    assert ops == [(5, 3)]


def test_gold_matches_independent_execution(con, cipher_ci_warehouse):
    store = DomainStore.from_warehouse(con)
    rows = q(con, """select i.instance_id, i.domain, i.sql, i.answer_type, g.condition, g.answer_json, g.support_ids
                     from cipher_instances i join cipher_gold g using (instance_id) order by 1, 5""")
    assert rows
    for iid, domain, sql, answer_type, cond, answer, support in rows:
        res = execute_sql(store, sql, domain, cond, answer_type=answer_type)
        assert (res.answer_json, res.support_json) == (answer, support), iid


def test_conditions_differ_somewhere_but_records_align(con):
    n = q(con, "select count(*) from (select record_id from cipher_cfpb_view group by record_id having count(*) = 2)")
    assert n == q(con, "select count(distinct record_id) from cipher_cfpb_view")
    diff = q(con, """select count(*) from cipher_records r join cipher_records s
                     on r.domain = s.domain and r.record_id = s.record_id
                     where r.condition = 'redacted' and s.condition = 'restored' and r.serialized <> s.serialized""")
    assert diff[0][0] > 0


def test_context_answers_equal_restricted_execution(con):
    store = DomainStore.from_warehouse(con)
    rows = q(con, """select i.instance_id, i.domain, i.sql, i.answer_type, c.condition, c.record_ids, c.context_answer_json
                     from cipher_contexts c join cipher_instances i using (instance_id)
                     where c.setting = 'support_controlled' and i.in_benchmark order by 1, 5""")
    for iid, domain, sql, answer_type, cond, ids, answer in rows[::3]:
        res = execute_sql(store, sql, domain, cond, record_ids=json.loads(ids), answer_type=answer_type)
        assert res.answer_json == answer, iid


def test_support_controlled_contexts(con):
    rows = q(con, """select c.record_ids, c.n_records, c.context_answer_json, c.distractors_verified, g.answer_json, g.support_ids
                     from cipher_contexts c join cipher_gold g using (instance_id, condition)
                     join cipher_instances i using (instance_id)
                     where c.setting = 'support_controlled' and i.in_benchmark""")
    assert rows
    for ids_json, n, ctx_answer, verified, gold, support in rows:
        ids = json.loads(ids_json)
        assert 39 <= n <= 42 and len(ids) == n == len(set(ids))
        assert set(json.loads(support)) <= set(ids)
        assert verified and ctx_answer == gold
    full = q(con, "select min(n_records), max(n_records) from cipher_contexts where setting = 'full_table'")
    assert full[0][1] >= 45


def test_records_expose_only_model_visible_fields(con):
    for domain, fields_json, line in q(con, "select domain, fields_json, serialized from cipher_records"):
        fields = json.loads(fields_json)
        assert list(fields) == DOMAINS[domain].visible
        assert not set(DOMAINS[domain].annotation) & set(fields)
        assert line.startswith("[record_id: ") and "\n" not in line


def test_empty_narrative_record_is_kept_and_flagged(con):
    rows = q(con, "select record_id from cipher_records where empty_narrative and condition = 'redacted'")
    assert rows  # the CI CFPB sample contains a complaint without narrative


def test_benchmark_stats_reproduce_table1_layout(con):
    stats = {(d, s): v for d, _sec, s, v in q(con, "select domain, section, statistic, value from cipher_benchmark_stats")}
    for d in DOMAINS:
        assert stats[(d, "structured_columns")] == len(DOMAINS[d].structured)
        assert stats[(d, "narrative_columns")] == len(DOMAINS[d].narrative)
        pct = sum(stats.get((d, op), 0) for op in ("filtering", "aggregation", "ranking", "trend", "co-occurrence"))
        assert abs(pct - 100) < 0.5
    assert 550 < stats[("cfpb", "avg_narrative_words")] < 1100


def test_audit_marts(con):
    rows = q(con, "select domain, n_templates, retained_pct from cipher_audit_retention order by domain")
    assert [r[0] for r in rows] == ["cfpb", "fir", "mimic"]
    assert all(0 <= r[2] <= 100 for r in rows)
    labels = q(con, "select distinct decision from cipher_template_audit where source = 'auto'")
    assert {r[0] for r in labels} <= {"APPROVE", "REWRITE", "REMOVE"}
    assert q(con, "select count(*) from cipher_audit_agreement") == [(0,)]  # no human reviews shipped


def test_bad_instances_are_labelled_remove_and_the_build_goes_on(cipher_ci_warehouse, tmp_path, monkeypatch):
    from evalhouse.dbt_runner import dbt_build
    from evalhouse.landing import LandingZone

    src = cipher_ci_warehouse.db.parent
    shutil.copy2(cipher_ci_warehouse.db, tmp_path / "evalhouse.duckdb")
    shutil.copytree(src / "landing", tmp_path / "landing")
    monkeypatch.setenv("EVALHOUSE_DB", str(tmp_path / "evalhouse.duckdb"))
    monkeypatch.setenv("EVALHOUSE_LANDING", str(tmp_path / "landing"))
    zone = LandingZone()
    run_id = zone.read("cipher_instance_params")["run_id"].iloc[0]
    zone.write("cipher_instance_params", run_id, [
        {"item_id": "fir-ZZZ-0001", "domain": "fir", "template_id": "FIR-ZZZ", "seq": 1, "params": {"year": 2020}},
        {"item_id": "fir-F01-9999", "domain": "fir", "template_id": "FIR-F01", "seq": 9999, "params": {"year": 2020}},
    ])
    dbt_build(select="+cipher_instances +cipher_gold")
    c = duckdb.connect(str(tmp_path / "evalhouse.duckdb"), read_only=True)
    try:
        got = dict((r[0], r[1:]) for r in c.execute(
            "select instance_id, audit_status, audit_reason, in_benchmark from cipher_instances "
            "where instance_id in ('fir-ZZZ-0001', 'fir-F01-9999')").fetchall())
        status = c.execute("select distinct status from cipher_gold where instance_id = 'fir-ZZZ-0001'").fetchall()
    finally:
        c.close()
    assert got["fir-ZZZ-0001"][0] == "REMOVE" and "template not found" in got["fir-ZZZ-0001"][1]
    assert got["fir-F01-9999"][0] == "REMOVE" and "missing parameter" in got["fir-F01-9999"][1]
    assert not got["fir-ZZZ-0001"][2]
    assert status == [("error",)]
