"""SQL validation, lineage, support derivation and execution (set-based == one by one)."""
from __future__ import annotations

import json

import pytest

from evalhouse.cipher.domains import CONDITIONS
from evalhouse.cipher.generate import sql_table
from evalhouse.cipher.records import DomainBuilder
from evalhouse.cipher.sql_exec import DomainStore, canonical_answer, execute_sql, execute_template
from evalhouse.cipher.sql_validate import (SQLValidationError, analyze_template, drop_narrative_predicates, lineage,
                                           render, support_sql, validate_sql)
from evalhouse.cipher.templates import load_templates


@pytest.mark.parametrize("sql", [
    "DROP TABLE cfpb", "DELETE FROM cfpb", "INSERT INTO cfpb VALUES (1)", "UPDATE cfpb SET state = 'CA'",
    "ATTACH 'other.db' AS o", "COPY cfpb TO '/tmp/x.csv'", "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_parquet('x.parquet')", "SELECT 1; SELECT 2", "SELECT * FROM other_table",
    "SELECT no_such_column FROM cfpb", "SELECT getenv('HOME') FROM cfpb", "PRAGMA version",
    "SELECT * FROM 'data.csv'", "CREATE TABLE t AS SELECT * FROM cfpb", "SELECT * FROM main.cfpb",
])
def test_unsafe_or_unknown_sql_is_rejected(sql):
    with pytest.raises(SQLValidationError):
        validate_sql(sql, "cfpb")


def test_lineage_marks_hybrid_sql():
    sql = "SELECT company FROM cfpb WHERE received_year = 2021 AND fraud_alleged GROUP BY company ORDER BY COUNT(*) DESC LIMIT 1"
    lin = lineage(sql, "cfpb")
    assert lin.structured == ("company", "received_year") and lin.annotation == ("fraud_alleged",)
    assert lin.is_hybrid
    assert not lineage("SELECT COUNT(*) FROM cfpb WHERE state = 'CA'", "cfpb").is_hybrid


def test_support_sql_and_structured_only_variant():
    sql = "SELECT COUNT(*) FROM fir WHERE district = 'Hisar' AND injury_reported"
    assert "fir.injury_reported" in support_sql(sql, "fir") and "record_id" in support_sql(sql, "fir")
    assert "injury_reported" not in drop_narrative_predicates(sql, "fir")
    assert "district" in drop_narrative_predicates(sql, "fir")


def test_every_seed_template_validates_and_is_hybrid():
    templates = load_templates()
    assert len({(t.domain, t.operation, t.answer_type) for t in templates}) == 45  # 5 ops x 3 types x 3 domains
    for t in templates:
        info = analyze_template(t.sql, t.domain)
        assert info.ok, (t.template_id, info.error)
        assert info.structured and info.annotation, t.template_id


def test_render_escapes_strings_and_rejects_non_scalars():
    assert render("x = '{v}'", {"v": "O'Brien"}) == "x = 'O''Brien'"
    with pytest.raises(SQLValidationError):
        render("x = {v}", {"v": [1, 2]})


def test_canonical_answers():
    assert canonical_answer([(3,)], "number") == "3"
    assert canonical_answer([(2.50001,)], "number") == "2.5"
    assert canonical_answer([], "string") == "null"
    assert canonical_answer([("b",), ("a",)], "list", ordered=False) == '["a","b"]'
    assert canonical_answer([("b",), ("a",)], "list", ordered=True) == '["b","a"]'
    assert canonical_answer([(2021, 3), (2022, 1)], "list") == "[[2021,3],[2022,1]]"


@pytest.fixture(scope="module")
def store():
    built = {d: DomainBuilder(d, 5).build(50 if d != "fir" else 30) for d in ("fir", "cfpb", "mimic")}
    return DomainStore.from_frames({(d, c): sql_table(d, recs, c) for d, recs in built.items() for c in CONDITIONS})


def test_set_based_execution_matches_one_statement_per_instance(store):
    # Every seed template: the correlated, set-based form must give exactly the per-instance answers.
    checked = 0
    for t in load_templates()[::5]:
        info = analyze_template(t.sql, t.domain)
        store.bind(t.domain, "redacted")
        cur = store.con.execute(t.slots_sql)
        names = [d[0] for d in cur.description]
        params = [dict(zip(names, r)) for r in cur.fetchall()][:4]
        if not params:
            continue
        batch = execute_template(store, t.sql, info.support_sql, t.domain, "restored", params, t.answer_type, info.ordered)
        for p, res in zip(params, batch):
            one = execute_sql(store, render(t.sql, p), t.domain, "restored", answer_type=t.answer_type,
                              support_sql=render(info.support_sql, p), ordered=info.ordered)
            assert (res.answer_json, res.support_ids, res.status) == (one.answer_json, one.support_ids, one.status), t.template_id
            checked += 1
    assert checked > 120


def test_restricted_execution_only_sees_context_records(store):
    sql = "SELECT record_id FROM cfpb WHERE received_year >= 2019 ORDER BY record_id"
    res = execute_sql(store, sql, "cfpb", "redacted", record_ids=["CFPB-0003", "CFPB-0001"])
    assert json.loads(res.answer_json) == ["CFPB-0001", "CFPB-0003"]
    assert res.support_ids == ["CFPB-0001", "CFPB-0003"]


def test_bad_sql_and_unknown_condition_give_error_status(store):
    assert execute_sql(store, "DROP TABLE cfpb", "cfpb", "redacted").status == "error"
    bad = execute_sql(store, "SELECT COUNT(*) FROM cfpb WHERE fraud_alleged", "cfpb", "unredacted")
    assert bad.status == "error" and "unknown condition" in bad.error
