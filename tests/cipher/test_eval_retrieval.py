"""Retrieval (BM25, MiniLM dense, rerank) and prompt-size counting on real complaint narratives."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from evalhouse.cipher.prompts import Column, VisibleInput, render
from evalhouse.cipher.retrieval import CorpusIndex, count_tokens, embed


@pytest.fixture(scope="module")
def complaints(shared_data):
    with open(shared_data / "cfpb-sample" / "complaints.csv", newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if (r.get("Consumer complaint narrative") or "").strip()]
    rows = rows[:20]
    ids = [f"CFPB-{i:04d}" for i in range(1, len(rows) + 1)]
    lines = [f"[record_id: {rid}, product: {r['Product']}, issue: {r['Issue']}, "
             f"consumer_complaint_narrative: {' '.join(r['Consumer complaint narrative'].split())}]"
             for rid, r in zip(ids, rows)]
    return ids, lines, rows


def test_dense_vectors_are_unit_length_and_deterministic(complaints):
    _, lines, _ = complaints
    first, again = embed(lines[:5]), embed(lines[:5])
    assert first.shape == (5, 384)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.allclose(first, again, atol=1e-6)


def test_pools_are_ten_and_k_prefixes_share_them(complaints):
    ids, lines, rows = complaints
    index = CorpusIndex(ids, lines)
    target = 7
    question = f"Which complaints about {rows[target]['Issue'].lower()} mention {rows[target]['Product'].lower()}?"
    pools = index.retrieve_all(question, ids)
    assert set(pools) == {"bm25", "dense", "dense-rerank"}
    for ranked, scores in pools.values():
        assert len(ranked) == 10 == len(set(ranked)) and set(ranked) <= set(ids)
    assert set(pools["dense-rerank"][0]) == set(pools["dense"][0])  # a reordering of the same pool
    assert list(pools["bm25"][1]) == sorted(pools["bm25"][1], reverse=True)
    # a question quoting a narrative verbatim finds that record first, lexically and densely
    quote = " ".join(rows[target]["Consumer complaint narrative"].split()[:40])
    again = index.retrieve_all(quote, ids)
    assert again["bm25"][0][0] == ids[target] and again["dense"][0][0] == ids[target]
    # a per-question corpus: only the candidate records can come back
    subset = ids[:12]
    assert set(index.retrieve_all(question, subset)["bm25"][0]) <= set(subset)


def test_prompt_tokens_add_up_over_lines(complaints):
    ids, lines, _ = complaints
    inp = VisibleInput("cfpb", "How many complaints mention a late fee?",
                       (Column("record_id", "id"), Column("product", "structured"),
                        Column("consumer_complaint_narrative", "narrative")), tuple(ids), tuple(lines))
    text = "\n".join(m["content"] for m in render("cot", inp))
    whole = count_tokens([text])[0]
    parts = count_tokens(lines)
    assert whole == sum(parts) + count_tokens([text.replace("\n".join(lines), "")])[0]
    assert whole > 20 * 20


def test_per_question_bm25_equals_bm25s_on_the_subset(complaints):
    from evalhouse.cipher.retrieval import bm25_scores

    ids, lines, rows = complaints
    index = CorpusIndex(ids, lines, dense=False)
    subset = [0, 3, 4, 7, 9, 12, 15]
    for question in ("credit report identity theft inquiry", f"{rows[3]['Issue']} {rows[3]['Product']} report report"):
        ours = index.bm25(question, subset)
        reference = bm25_scores(question, [index.tokens[i] for i in subset])
        assert np.allclose(ours, reference, rtol=1e-4, atol=1e-5)
        assert ours.max() > 0
