"""Generates TUPLE-Bench's counterfactual pairs from the ontology seeds.

Order (section 4.2): every pair is registered first (table tuplebench_pair_registry: its two
mechanisms, its split and its seed), then its two worlds are rendered, then a counterfactual
certificate is checked for every pair. With a builder model, appendix J's quality control runs
as an LLM-judge workflow (qc.py). The embedded default is a seeded template generator:
both worlds of a pair share the public context, candidates, contract, costs and check laws and
differ only in the mechanism and its private evidence, which quotes two of the mechanism's three
event-level discriminants (varied subsets and order), a "ruled-out" note naming a confusable
category and neutral filler.
"""
from __future__ import annotations

import hashlib
import random
import re
from itertools import combinations

from ..benchmarks import JobOptions
from ..runs import open_run
from . import ontology

GENERATE_KIND = "tuplebench.generate"
SPLIT_SHARES = {"train": 0.6, "validation": 0.2, "test": 0.2}
PAIRS_PER_MECHANISM_PAIR = {"paper": 10, "ci": 5}  # 6 mechanism pairs x 4 categories x 3 domains

CLIENTS = ["Harbor Foods", "Northwind Clinic", "Alder Print", "Bluefin Labs", "Cedar Outfitters",
           "Delta Pharmacy", "Elm Street Books", "Fjord Logistics", "Granite Dental", "Helix Studios",
           "Iris Florals", "Juniper Tools", "Kestrel Media", "Lumen Optics", "Maple Bakery"]
TIERS = ["standard", "priority", "enterprise"]
REPORTERS = {"delivery": ["customer", "depot supervisor", "account manager"],
             "equipment": ["site operator", "plant manager", "service contract desk"],
             "it_ops": ["on-call engineer", "business user", "monitoring system"]}
OPENERS = {"delivery": "Shipment {ref} is flagged for follow-up by operations.",
           "equipment": "Service case {ref} concerns unit {unit} at the customer site.",
           "it_ops": "Incident {ref} affects a production service used by the client."}
RULED_OUT = ["An early note mentioned {phrase}, which was later ruled out.",
             "The first responder suspected {phrase}; that was not confirmed.",
             "A customer message spoke of {phrase}, but the records do not support it."]
UNRELATED = ["An unrelated earlier case on another account read: {quote}",
             "For comparison, a closed case from last quarter noted: {quote}"]
FILLERS = ["The case notes were updated at {t}.", "Reference {code} is attached to the file.",
           "The on-duty lead reviewed the timeline.", "No other open cases exist for this account."]


def generate(opts: JobOptions) -> str:
    """Register, render and certify every pair; returns the generation run id."""
    domains = ontology.load()
    per = opts.extra.get("pairs_per_mechanism_pair") or PAIRS_PER_MECHANISM_PAIR[opts.scale]
    config = {"seed": opts.seed, "scale": opts.scale, "pairs_per_mechanism_pair": per,
              "generator": "template", "builder_model": opts.builder_model, "tag": opts.run_tag}
    with open_run(GENERATE_KIND, config, benchmark="tuplebench") as run:
        registry = register_pairs(domains, per, opts.seed)
        if not run.done_items("tuplebench_pair_registry"):
            run.write("tuplebench_pair_registry", registry)  # registered before any world exists
        done = run.done_items("tuplebench_worlds_raw")
        worlds = [w for reg in registry for w in render_pair(reg, domains[reg["domain"]])]
        todo = [w for w in worlds if w["item_id"] not in done]
        for start in range(0, len(todo), 500):
            run.write("tuplebench_worlds_raw", todo[start:start + 500])
        by_pair: dict[str, list[dict]] = {}
        for w in worlds:
            by_pair.setdefault(w["pair_id"], []).append(w)
        done_cert = run.done_items("tuplebench_certificates")
        certs = [certify(reg, by_pair[reg["pair_id"]], domains[reg["domain"]])
                 for reg in registry if reg["pair_id"] not in done_cert]
        run.write("tuplebench_certificates", certs)
        run.count("pairs", len(registry))
        run.count("worlds", len(worlds))
        run.count("certificates_failed", sum(not c["passed"] for c in certs))
        if opts.builder_model:
            from .qc import run_quality_control
            run_quality_control(run, opts, registry, by_pair, domains)
        return run.run_id


def register_pairs(domains: dict[str, ontology.Domain], per_mech_pair: int, seed: int) -> list[dict]:
    """Every pair with its two mechanisms, split (by pair) and seed, in a fixed order."""
    rows: list[dict] = []
    for dom in domains.values():
        for cat in dom.categories:
            mechs = [m.name for m in dom.mechanisms_of(cat.name)]
            for a, b in combinations(mechs, 2):
                rng = random.Random(f"{seed}|register|{dom.name}|{a}|{b}")
                splits = _split_labels(per_mech_pair)
                rng.shuffle(splits)
                for rep in range(per_mech_pair):
                    order = len(rows)
                    pair_id = f"p{_digest(seed, dom.name, a, b, rep)[:10]}"
                    flip = rng.random() < 0.5
                    rows.append({
                        "item_id": pair_id, "pair_id": pair_id, "domain": dom.name,
                        "coarse_category": cat.name, "hypothesis_a": a, "hypothesis_b": b,
                        "world0_mechanism": b if flip else a, "world1_mechanism": a if flip else b,
                        "split": splits[rep], "pair_seed": int(_digest(seed, pair_id)[:8], 16),
                        "registered_order": order,
                    })
    return rows


def _split_labels(n: int) -> list[str]:
    n_val = round(n * SPLIT_SHARES["validation"])
    n_test = round(n * SPLIT_SHARES["test"])
    return ["train"] * (n - n_val - n_test) + ["validation"] * n_val + ["test"] * n_test


def _digest(*parts) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


def _fill(template: str, rng: random.Random) -> str:
    return template.format(n=rng.randint(2, 48), t=f"{rng.randint(0, 23):02d}:{rng.choice([0, 15, 30, 45]):02d}",
                           code=f"{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{rng.randint(100, 999)}")


def shared_fields(reg: dict, dom: ontology.Domain) -> dict:
    """What both worlds of a pair share: public context, candidates, contract, costs, checks."""
    rng = random.Random(reg["pair_seed"])
    ref = f"{rng.choice('CDFKMQRTWX')}{rng.randint(10000, 99999)}"
    opener = OPENERS[dom.name].format(ref=ref, unit=f"U-{rng.randint(100, 999)}")
    public = (f"{opener} Client: {rng.choice(CLIENTS)} ({rng.choice(TIERS)} account). "
              f"Reported by the {rng.choice(REPORTERS[dom.name])} on day {rng.randint(1, 28)} "
              f"of month {rng.randint(1, 12)}.")
    base = ontology.cost_profiles()[0]
    return {
        "public_context": public,
        "candidates": [{"id": c.name, "label": c.label} for c in dom.categories],
        "recipient_contract": dom.contract["instruction"],
        "check_laws": [{"check_id": c.check_id, "question": c.check_question, "answers_yes_when": c.name}
                       for c in dom.categories],
        "costs": {"wrong_route": base["wrong_route_cost"], "review": base["review_cost"],
                  "check": base["check_cost"]},
    }


def render_pair(reg: dict, dom: ontology.Domain) -> list[dict]:
    shared = shared_fields(reg, dom)
    mechs = {m.name: m for m in dom.mechanisms}
    cats = {c.name: c for c in dom.categories}
    out = []
    for index in (0, 1):
        mech = mechs[reg[f"world{index}_mechanism"]]
        rng = random.Random(f"{reg['pair_seed']}|world|{index}")
        evidence, used = private_evidence(mech, cats, rng, list(dom.mechanisms))
        world_id = f"w{_digest(reg['pair_seed'], index, 'world')[:12]}"
        out.append({"item_id": world_id, "world_id": world_id, "pair_id": reg["pair_id"],
                    "world_index": index, "domain": dom.name, "coarse_category": mech.category,
                    "mechanism": mech.name, "split": reg["split"], **shared,
                    "private_evidence": evidence, "hypothesis_a": reg["hypothesis_a"],
                    "hypothesis_b": reg["hypothesis_b"], "discriminants_used": used,
                    "generator": "template"})
    return out


def private_evidence(mech: ontology.Mechanism, cats: dict[str, ontology.Category],
                     rng: random.Random, others: list[ontology.Mechanism]) -> tuple[str, list[int]]:
    """Quote one or two of the mechanism's discriminants; add a ruled-out suspicion naming the
    confusable category, sometimes a quoted event from an unrelated earlier case of that
    category, a category tag and neutral filler (the systems see the text, not the labels)."""
    used = rng.sample(range(len(mech.discriminants)), 1 if rng.random() < 0.4 else 2)
    sentences = [_fill(mech.discriminants[i], rng) for i in used]
    if rng.random() < 0.75:
        phrase = rng.choice(cats[mech.confusable_category].suspicions)
        sentences.insert(rng.randint(0, len(sentences)), rng.choice(RULED_OUT).format(phrase=phrase))
    decoys = [o for o in others if o.category == mech.confusable_category]
    if decoys and rng.random() < 0.55:
        decoy = rng.choice(decoys)
        quoted = _fill(rng.choice(decoy.discriminants), rng)
        sentences.insert(rng.randint(0, len(sentences)), rng.choice(UNRELATED).format(quote=quoted))
    if rng.random() < 0.3:
        sentences.append(f"The case is tagged for {rng.choice(cats[mech.category].suspicions)}.")
    sentences.insert(rng.randint(0, len(sentences)), _fill(rng.choice(FILLERS), rng))
    return " ".join(sentences), used


def _template_regex(template: str) -> re.Pattern:
    parts = re.split(r"\{(?:n|t|code)\}", template)
    return re.compile(".+?".join(re.escape(p) for p in parts))


def discriminants_present(evidence: str, mech: ontology.Mechanism) -> int:
    return sum(bool(_template_regex(t).search(evidence)) for t in mech.discriminants)


def certify(reg: dict, worlds: list[dict], dom: ontology.Domain) -> dict:
    """Appendix B.3: shared fields equal, mechanisms distinct and in the same authorized
    category, evidence different, and each world's evidence discriminating its own mechanism."""
    mechs = {m.name: m for m in dom.mechanisms}
    w0, w1 = sorted(worlds, key=lambda w: w["world_index"])
    shared = ["public_context", "candidates", "recipient_contract", "check_laws", "costs",
              "coarse_category", "split", "hypothesis_a", "hypothesis_b"]
    checks = {f"shared_{f}": w0[f] == w1[f] for f in shared}
    m0, m1 = mechs.get(w0["mechanism"]), mechs.get(w1["mechanism"])
    checks["two_worlds"] = len(worlds) == 2
    checks["mechanisms_registered"] = {w0["mechanism"], w1["mechanism"]} == {reg["hypothesis_a"], reg["hypothesis_b"]}
    checks["mechanisms_distinct"] = w0["mechanism"] != w1["mechanism"]
    checks["same_authorized_category"] = bool(m0 and m1 and m0.category == m1.category == reg["coarse_category"])
    checks["evidence_differs"] = w0["private_evidence"] != w1["private_evidence"]
    checks["evidence_discriminates"] = bool(
        m0 and m1
        and discriminants_present(w0["private_evidence"], m0) >= 1 and discriminants_present(w0["private_evidence"], m1) == 0
        and discriminants_present(w1["private_evidence"], m1) >= 1 and discriminants_present(w1["private_evidence"], m0) == 0)
    checks["mechanism_not_in_public"] = all(
        m.label.lower() not in w0["public_context"].lower() for m in (m0, m1) if m)
    failed = [k for k, ok in checks.items() if not ok]
    return {"item_id": reg["pair_id"], "pair_id": reg["pair_id"], "passed": not failed,
            "checks": checks, "failed_checks": failed}
