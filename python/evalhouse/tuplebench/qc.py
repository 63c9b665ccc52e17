"""Appendix J quality control as an LLM-judge workflow (builder role), run when a builder model
is given to `generate`. Results land per pair and stage in tuplebench_qc_results.

Stage A, blind inference: each world alone, without its intended labels or the registered
  hypothesis pair, against the domain's catalog; UNCERTAIN / OTHER allowed. Passes when both
  worlds' inferred category and mechanism equal the intended ones.
Stage B, contract verification: the pair with its intended labels and the eleven contract
  checks, each PASS / FAIL / UNCERTAIN; passes only when all eleven PASS.
Stage C, event-family screening: the pair against up to four other pairs of the same authorized
  category (a bounded neighbourhood, not the full 190-edge matrix of the paper); each relation is
  related / independent / insufficient; passes when none is related.
overall: PASS when A, B and C pass; FAIL otherwise (UNCERTAIN when a judge call failed).
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

CONTRACT_CHECKS = ("business_result", "permitted_treatment", "secret_disclosure", "naturalness",
                   "causal_evidence", "alternatives", "shared_public_information", "labels",
                   "changed_mechanism", "approved_checks", "diagnostic_family")
NEIGHBOURS = 4
Verdict = Literal["PASS", "FAIL", "UNCERTAIN"]


class BlindInference(BaseModel):
    category: str = Field(description="a category id from the catalog, OTHER or UNCERTAIN")
    mechanism: str = Field(description="a mechanism id from the catalog, OTHER or UNCERTAIN")
    rationale: str


class ContractVerification(BaseModel):
    checks: dict[str, Verdict] = Field(description="each of the eleven named checks -> PASS, FAIL or UNCERTAIN")
    unresolved_alternative: bool
    notes: str


class FamilyScreening(BaseModel):
    relations: list[Literal["related", "independent", "insufficient"]]
    notes: str


JUDGE_RULES = ("Review only what is supplied, inside this synthetic task. Do not infer unstated facts and do "
               "not assume intended labels are right. Require sufficient, coherent, discriminating evidence, "
               "not proof against every imaginable cause. A contradicted claim is FAIL; comparably supported "
               "explanations or a missing necessary fact are UNCERTAIN.")


def _catalog(dom) -> str:
    lines = []
    for cat in dom.categories:
        mechs = ", ".join(f"{m.name} ({m.label})" for m in dom.mechanisms_of(cat.name))
        lines.append(f"- category {cat.name} ({cat.label}): mechanisms {mechs}")
    return "\n".join(lines)


def stage_a_messages(world: dict, dom) -> list[dict]:
    return [{"role": "system", "content": f"You are a blind reviewer of a synthetic operations case. {JUDGE_RULES}"},
            {"role": "user", "content": f"Candidate catalog (not a promise that any entry applies):\n{_catalog(dom)}\n\n"
                                        f"Observations:\n{world['public_context']}\n{world['private_evidence']}\n\n"
                                        "Infer the category and the mechanism this case supports."}]


def stage_b_messages(reg: dict, worlds: list[dict], dom) -> list[dict]:
    w0, w1 = sorted(worlds, key=lambda w: w["world_index"])
    checks = ", ".join(CONTRACT_CHECKS)
    return [{"role": "system", "content": f"You verify a counterfactual pair against its contract. {JUDGE_RULES}"},
            {"role": "user", "content": (
                f"Recipient contract: {w0['recipient_contract']}\nAuthorized category: {reg['coarse_category']}\n"
                f"Permitted checks: {w0['check_laws']}\nShared public context: {w0['public_context']}\n\n"
                f"World 0 (intended mechanism {w0['mechanism']}): {w0['private_evidence']}\n"
                f"World 1 (intended mechanism {w1['mechanism']}): {w1['private_evidence']}\n\n"
                f"Judge each check ({checks}) as PASS, FAIL or UNCERTAIN: the business result follows, the "
                "permitted treatment is the same in both worlds, the public context does not disclose the "
                "mechanism, the text is natural, the evidence causally supports each mechanism, no "
                "alternative fits as well, public information is shared, the labels are right, only the "
                "mechanism changed, the approved checks apply identically, and the diagnostic family is "
                "characterized.")}]


def stage_c_messages(reg: dict, worlds: list[dict], others: list[list[dict]]) -> list[dict]:
    def events(ws):
        return " | ".join(w["private_evidence"] for w in sorted(ws, key=lambda w: w["world_index"]))
    listing = "\n".join(f"{i + 1}. {events(o)}" for i, o in enumerate(others))
    return [{"role": "system", "content": f"You screen synthetic events for near-duplicates. {JUDGE_RULES}"},
            {"role": "user", "content": f"Target pair: {events(worlds)}\n\nOther pairs of the same category:\n{listing}\n\n"
                                        "For each other pair, in order, say related, independent or insufficient."}]


def run_quality_control(run, opts, registry: list[dict], by_pair: dict[str, list[dict]], domains) -> None:
    from ..llm import LLMClient, resolve_model

    spec = resolve_model(opts.builder_model, base_url=opts.base_url, api_key_env=opts.api_key_env, role="builder")
    done = run.done_items("tuplebench_qc_results")
    todo = [reg for reg in registry if f"{reg['pair_id']}|overall" not in done]
    if opts.limit:
        todo = todo[:opts.limit]
    pools: dict[tuple, list[str]] = {}
    for reg in registry:
        pools.setdefault((reg["domain"], reg["coarse_category"]), []).append(reg["pair_id"])
    client = LLMClient(run, concurrency=opts.concurrency)
    for start in range(0, len(todo), 50):
        batch = todo[start:start + 50]
        results = client.run_batch([(lambda reg=reg: _judge_pair(client, spec, reg, by_pair, pools, domains))
                                    for reg in batch], desc="tuplebench QC")
        rows = [row for pair_rows in results for row in pair_rows]
        for row in rows:
            row["judge_model"] = opts.builder_model
        run.write("tuplebench_qc_results", rows)
    client.close()


async def _judge_pair(client, spec, reg, by_pair, pools, domains) -> list[dict]:
    dom = domains[reg["domain"]]
    worlds = by_pair[reg["pair_id"]]
    pid = reg["pair_id"]
    rows = []
    a_ok, failed_call = True, False
    inferences = []
    for w in sorted(worlds, key=lambda w: w["world_index"]):
        r = await client.structured(spec, stage_a_messages(w, dom), BlindInference, purpose="tuplebench.qc.blind")
        if not r.ok:
            failed_call, a_ok = True, False
            inferences.append({"error": r.error})
            continue
        inferences.append(r.value.model_dump())
        a_ok &= r.value.category == w["coarse_category"] and r.value.mechanism == w["mechanism"]
    rows.append(_row(pid, "A", "PASS" if a_ok else ("UNCERTAIN" if failed_call else "FAIL"), {"inferences": inferences}))
    r = await client.structured(spec, stage_b_messages(reg, worlds, dom), ContractVerification, purpose="tuplebench.qc.contract")
    if r.ok:
        missing = [c for c in CONTRACT_CHECKS if c not in r.value.checks]
        b_ok = not missing and all(r.value.checks[c] == "PASS" for c in CONTRACT_CHECKS) and not r.value.unresolved_alternative
        rows.append(_row(pid, "B", "PASS" if b_ok else "FAIL", {**r.value.model_dump(), "missing_checks": missing}))
    else:
        failed_call, b_ok = True, False
        rows.append(_row(pid, "B", "UNCERTAIN", {"error": r.error}))
    pool = [p for p in pools[(reg["domain"], reg["coarse_category"])] if p != pid]
    start = pools[(reg["domain"], reg["coarse_category"])].index(pid)
    neighbours = [pool[(start + k) % len(pool)] for k in range(min(NEIGHBOURS, len(pool)))]
    r = await client.structured(spec, stage_c_messages(reg, worlds, [by_pair[p] for p in neighbours]),
                                FamilyScreening, purpose="tuplebench.qc.family")
    if r.ok:
        c_ok = len(r.value.relations) == len(neighbours) and "related" not in r.value.relations
        rows.append(_row(pid, "C", "PASS" if c_ok else "FAIL", {**r.value.model_dump(), "neighbours": neighbours}))
    else:
        failed_call, c_ok = True, False
        rows.append(_row(pid, "C", "UNCERTAIN", {"error": r.error}))
    overall = "PASS" if (a_ok and b_ok and c_ok) else ("UNCERTAIN" if failed_call else "FAIL")
    rows.append(_row(pid, "overall", overall, {"stages": {r["stage"]: r["verdict"] for r in rows}}))
    return rows


def _row(pair_id: str, stage: str, verdict: str, details: dict) -> dict:
    return {"item_id": f"{pair_id}|{stage}", "pair_id": pair_id, "stage": stage, "verdict": verdict,
            "details": details}
