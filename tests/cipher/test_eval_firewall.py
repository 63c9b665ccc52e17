"""Firewall: prompts hold the question and visible records only — never the SQL, template,
operation label, support ids, annotation view or reference answer."""
from __future__ import annotations

import csv
import dataclasses
import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # eval_support.py beside this file
from eval_support import copy_warehouse, pointed_at, source_dir  # noqa: E402
from evalhouse.cipher.domains import DOMAINS
from evalhouse.cipher.prompts import RESPONSE_MODELS, render

pytestmark = pytest.mark.slow

CANARY = "ZQXCANARY"


@pytest.fixture(scope="module")
def sampled(cipher_ci_warehouse, tmp_path_factory):
    """Items and visible records of a sample of instances (both conditions, both settings)."""
    root = copy_warehouse(source_dir(cipher_ci_warehouse), tmp_path_factory.mktemp("cipher_firewall"))
    with pointed_at(root):
        from evalhouse.cipher.eval_data import load_items, load_records

        items, records = load_items(), load_records()
    rng = random.Random(42)
    by_domain = {}
    for item in items:
        by_domain.setdefault(item.domain, []).append(item)
    chosen = [it for d in sorted(by_domain) for it in rng.sample(by_domain[d], min(8, len(by_domain[d])))]
    return chosen, records


def _secretless(item):
    """The same item with every secret replaced by a canary."""
    return dataclasses.replace(item, sql=f"SELECT {CANARY}_SQL", support_sql=f"SELECT {CANARY}_SUP",
                               template_id=f"{CANARY}_TPL",
                               operation=f"{CANARY}_OP", answer_type=f"{CANARY}_TYPE",
                               gold_json=json.dumps(f"{CANARY}_GOLD"), in_paired_eval=False)


def _prompts(item, records):
    from evalhouse.cipher.eval_data import visible_input

    texts = {}
    for method in RESPONSE_MODELS:
        ids = item.context_ids[:5] if method.startswith("rag-") else None
        messages = render(method, visible_input(item, records, ids))
        texts[method] = "\n".join(m["content"] for m in messages)
    return texts


def test_prompts_do_not_depend_on_or_contain_secrets(sampled):
    items, records = sampled
    assert {it.domain for it in items} == set(DOMAINS)
    for item in items:
        real, canaried = _prompts(item, records), _prompts(_secretless(item), records)
        assert real == canaried, f"a secret field changes the prompt of {item.instance_id}"
        annotation = DOMAINS[item.domain].annotation
        for method, text in real.items():
            assert CANARY not in canaried[method]
            assert item.sql not in text and item.template_id not in text
            assert f"operation: {item.operation}" not in text.lower()
            assert json.dumps(list(item.support_ids)) not in text
            for column in annotation:  # neither listed as a field nor serialized as one
                assert f"- {column} (" not in text and f", {column}: " not in text, (method, column)
            assert item.question in text
            shown = item.context_ids[:5] if method.startswith("rag-") else item.context_ids
            assert all(rid in text for rid in shown)


def test_pot_table_holds_visible_columns_of_context_records_only(sampled, tmp_path):
    from evalhouse.cipher.eval_data import visible_input
    from evalhouse.cipher.systems.llm_methods import write_temp_csv

    items, records = sampled
    item = items[0]
    path = write_temp_csv(visible_input(item, records), tmp_path)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert set(rows[0]) == set(DOMAINS[item.domain].visible)
    assert [r["record_id"] for r in rows] == list(item.context_ids)


def test_judge_prompt_sees_question_reference_and_candidate_only(sampled):
    from evalhouse.cipher.judge import judge_messages

    items, _ = sampled
    item = items[0]
    text = "\n".join(m["content"] for m in judge_messages(item.question, item.gold_json, ["X"]))
    assert item.question in text and item.sql not in text and item.template_id not in text
    assert all(rid not in text for rid in item.context_ids if rid not in item.gold_json)
