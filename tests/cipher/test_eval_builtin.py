"""Built-in systems end to end on the CI warehouse: oracle-sql = 100, marts, resume, report."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # eval_support.py beside this file
from eval_support import builtin_evaluated, pointed_at  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture
def evaluated(cipher_ci_warehouse, tmp_path_factory):
    root = builtin_evaluated(cipher_ci_warehouse, tmp_path_factory)
    with pointed_at(root):
        yield root


def _df(sql, params=None):
    from evalhouse.warehouse import query_df

    return query_df(sql, params)


def test_oracle_sql_scores_m3_100_on_every_instance(evaluated):
    expected = _df("""select count(*) n from cipher_contexts c join cipher_instances i using (instance_id)
                      where i.in_benchmark""")["n"][0]
    oracle = _df("select * from cipher_scores where system = 'oracle-sql'")
    assert len(oracle) == expected > 0
    assert set(oracle["condition"]) == {"redacted", "restored"}
    assert set(oracle["setting"]) == {"support_controlled", "full_table"}
    bad = oracle[(oracle["m3"] != 1.0) | (oracle["m1"] != 1.0) | (oracle["m2"] != 1)]
    assert bad.empty, bad[["instance_id", "condition", "setting", "answer_json", "gold_answer_json", "rule_reason"]].head()
    assert oracle["failure_label"].isna().all()
    totals = _df("""select m1, m2, m3 from cipher_results where system = 'oracle-sql' and domain = '(all)'
                    and operation = '(all)' and answer_type = '(all)'""")
    assert (totals == 100.0).all().all()


def test_every_builtin_system_scored_on_both_conditions_and_settings(evaluated):
    cells = _df("""select system, count(distinct condition || setting) n from cipher_scores
                   where model = 'builtin' group by system""").set_index("system")["n"].to_dict()
    assert cells == {s: 4 for s in ("oracle-sql", "structured-only-sql", "bm25-top5", "dense-top5", "dense-rerank-top5")}
    results = _df("""select system, m3 from cipher_results where domain = '(all)' and operation = '(all)'
                     and answer_type = '(all)' and condition = 'redacted' and setting = 'support_controlled'""")
    m3 = results.set_index("system")["m3"]
    # dropping the narrative predicates must cost something on hybrid questions
    assert m3["structured-only-sql"] < 100.0
    assert all(0.0 <= v < 100.0 for s, v in m3.items() if s != "oracle-sql")


def test_failed_outputs_carry_one_failure_label_from_provenance(evaluated):
    scores = _df("select system, failed, failure_label, status, n_cited, n_support from cipher_scores")
    failed = scores[scores["failed"]]
    assert len(failed) and failed["failure_label"].notna().all()
    assert scores[~scores["failed"]]["failure_label"].isna().all()
    assert set(failed["failure_label"]) <= {"evidence_selection", "predicate_interpretation",
                                            "aggregation_count", "entity_grounding", "other"}
    modes = _df("""select population, setting, condition, operation, sum(share_pct) s from cipher_failure_modes
                   where system_scope = '(all non-oracle)' and domain = '(all)' and n_cell_total > 0
                   group by all""")
    assert set(modes["population"]) >= {"all_failures"}
    assert modes["s"].round(6).eq(100.0).all()


def test_m1_on_real_gold_lists(evaluated):
    from evalhouse.cipher.scoring import m1, rule_judge

    golds = _df("""select c.context_answer_json, i.answer_type, i.question from cipher_contexts c
                   join cipher_instances i using (instance_id)
                   where i.answer_type = 'list' and json_array_length(c.context_answer_json) >= 3""")
    assert len(golds) > 0
    for text, kind, question in golds.itertuples(index=False):
        gold = json.loads(text)
        items = {json.dumps(x) for x in gold}
        n = len(items)
        partial = gold[:-1] if json.dumps(gold[-1]) not in {json.dumps(x) for x in gold[:-1]} else gold
        k = len({json.dumps(x) for x in partial})
        assert m1(gold, gold, kind) == 1.0
        assert m1(partial, gold, kind) == pytest.approx(2 * k / (k + n))
        assert m1([], gold, kind) == 0.0
        assert not rule_judge(question, gold, []).accept


def test_retrieval_recall_is_monotone_in_k(evaluated):
    recall = _df("""select retriever, condition, setting, k, mean_recall from cipher_retrieval
                    where domain = '(all)' order by retriever, condition, setting, k""")
    assert set(recall["retriever"]) == {"bm25", "dense", "dense-rerank"}
    assert set(recall["k"]) == {1, 3, 5, 10}
    for _, group in recall.groupby(["retriever", "condition", "setting"]):
        values = list(group["mean_recall"])
        assert values == sorted(values) and all(0 <= v <= 100 for v in values)
    pool10 = recall[recall["k"] == 10].set_index(["retriever", "condition", "setting"])["mean_recall"]
    for cond in ("redacted", "restored"):
        for setting in ("support_controlled", "full_table"):
            assert pool10[("dense", cond, setting)] == pytest.approx(pool10[("dense-rerank", cond, setting)])


def test_prompt_tokens_per_method(evaluated):
    tokens = _df("""select method, setting, mean_tokens from cipher_eval_prompt_tokens
                    where domain = '(all)' and condition = 'redacted'""").set_index(["method", "setting"])["mean_tokens"]
    sc = "support_controlled"
    assert tokens[("few-shot", sc)] > tokens[("zero-shot", sc)]
    assert tokens[("rag-dense", sc)] < tokens[("zero-shot", sc)]
    assert tokens[("zero-shot", "full_table")] > tokens[("zero-shot", sc)]


def test_rerun_resumes_without_new_outputs(evaluated):
    from evalhouse.benchmarks import JobOptions
    from evalhouse.cipher import evaluate
    from evalhouse.landing import LandingZone

    before = len(LandingZone().read("cipher_eval_outputs"))
    evaluate.run(JobOptions(scale="ci"))
    assert len(LandingZone().read("cipher_eval_outputs")) == before


def test_report_sections_come_from_the_marts(evaluated):
    from evalhouse.cipher.report_sections import sections
    from evalhouse.report.sections import Chart, Table
    from evalhouse.warehouse import connect

    with connect(read_only=True) as con:
        found = sections(con)
    assert len(found) == 1
    titles = [b.title for b in found[0].blocks]
    assert any(t.startswith("Built-in systems") for t in titles)
    assert any(t.startswith("Figure 4") for t in titles)
    assert any(t.startswith("Figure 6") for t in titles)
    assert any(t.startswith("Retrieval recall@k") for t in titles)
    builtin = next(b for b in found[0].blocks if isinstance(b, Table) and b.title.startswith("Built-in"))
    oracle = builtin.frame[builtin.frame["system"] == "oracle-sql"]
    assert (oracle["m3"] == 100.0).all()
    assert all(isinstance(b, (Chart, Table)) for b in found[0].blocks)
