"""Workflow-constrained privacy quantization (section 6, appendix H).

A trusted-backend post-processor. Its inputs are a response's released fields (choice,
probabilities, confidence), the frozen workflows and the codebook; it never reads the
mechanism, the private evidence or any identifier.

signature(response) = (selected category, field availability, the complete plan of each of
  the 18 frozen workflows, i.e. its action for every possible check outcome).
codebook (per domain, ordered): a fixed probability grid (step 0.1 on the 4-class simplex) x a
  fixed confidence grid, then the training responses' own (probabilities, confidence), then the
  training probabilities with each grid confidence (valid confidence replacements). Each
  codeword keeps the input's selected category.
strict mapper: release the first codeword whose signature equals the response's; otherwise
  fall back to the native response (counted). The output depends only on (domain, signature),
  so covered responses with the same public context and signature get the same canonical output.
bounded-cost extension (appendix H.2): release the first codeword whose cost under every
  workflow and every hypothetical true class is at most the native cost plus alpha (actions may
  change; alpha = 0 forbids any cost increase). A deterministic first-feasible search over the
  same ordered codebook, not a learned mapper.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from .native import check
from .workflows import K, Policy, Release

GRID_STEPS = 10
CONFIDENCE_GRID = tuple(np.round(np.arange(0.25, 1.0001, 0.05), 2))


def probability_grid(steps: int = GRID_STEPS) -> np.ndarray:
    """Every 4-class probability vector with coordinates in multiples of 1/steps, in a fixed
    order (lexicographic, descending)."""
    pts = [c for c in product(range(steps, -1, -1), repeat=K) if sum(c) == steps]
    return np.array(pts, dtype=float) / steps


@dataclass
class Codebook:
    """Ordered codewords of one domain, for one selected category: probabilities and confidence."""

    choice: int
    probs: np.ndarray  # m x 4
    conf: np.ndarray   # m (NaN = no confidence field)

    def release(self) -> Release:
        return Release(np.full(len(self.conf), self.choice), self.probs, self.conf)


def build_codebooks(train: Release, has_confidence: bool) -> dict[int, Codebook]:
    """One ordered codebook per selected category, from the grid and the training responses."""
    grid = probability_grid()
    tr_ok = np.isfinite(train.probs).all(axis=1)
    tr_probs = train.probs[tr_ok]
    tr_conf = train.conf[tr_ok]
    confs = np.array(CONFIDENCE_GRID if has_confidence else (np.nan,))
    blocks_p = [np.repeat(grid, len(confs), axis=0)]
    blocks_c = [np.tile(confs, len(grid))]
    if has_confidence:
        keep = np.isfinite(tr_conf)
        blocks_p.append(tr_probs[keep])
        blocks_c.append(tr_conf[keep])
    blocks_p.append(np.repeat(tr_probs, len(confs), axis=0))
    blocks_c.append(np.tile(confs, len(tr_probs)))
    probs = np.vstack(blocks_p)
    conf = np.concatenate(blocks_c)
    books = {}
    for choice in range(K):
        valid = np.array([_valid(choice, p, c) for p, c in zip(probs, conf)])
        books[choice] = Codebook(choice, probs[valid], conf[valid])
    return books


def _valid(choice: int, probs: np.ndarray, conf: float) -> bool:
    cands = [str(i) for i in range(K)]
    obj = {"choice": str(choice), "probabilities": dict(zip(cands, map(float, probs)))}
    if np.isfinite(conf):
        obj["confidence"] = float(conf)
    return check(obj, cands, tolerance=1e-9).valid


def availability(rel: Release) -> np.ndarray:
    return ((rel.choice >= 0).astype(int) * 4 + np.isfinite(rel.probs).all(axis=1).astype(int) * 2
            + np.isfinite(rel.conf).astype(int))


def signatures(rel: Release, policies: list[Policy]) -> np.ndarray:
    """n x (2 + len(policies)) integer matrix: choice, availability, every workflow's plan."""
    cols = [rel.choice.astype(np.int64), availability(rel).astype(np.int64)]
    cols += [p.plans(rel).astype(np.int64) for p in policies]
    return np.column_stack(cols)


def cost_tensor(rel: Release, policies: list[Policy]) -> np.ndarray:
    """n x (workflows * 4): each workflow's cost under each hypothetical true class."""
    return np.column_stack([p.costs.plan_costs(p.plans(rel)) for p in policies])


@dataclass
class Mapping:
    released: Release
    covered: np.ndarray
    codeword_index: np.ndarray  # -1 for fallbacks


def strict_map(rel: Release, policies: list[Policy], books: dict[int, Codebook]) -> Mapping:
    sig = signatures(rel, policies)
    out_p, out_c = rel.probs.copy(), rel.conf.copy()
    covered = np.zeros(len(rel.choice), bool)
    index = np.full(len(rel.choice), -1)
    for choice, book in books.items():
        rows = np.flatnonzero(rel.choice == choice)
        if rows.size == 0:
            continue
        book_sig = signatures(book.release(), policies)
        first: dict[bytes, int] = {}
        for i, key in enumerate(map(bytes, book_sig)):
            first.setdefault(key, i)
        for r in rows:
            hit = first.get(bytes(sig[r]))
            if hit is None:
                continue
            cand = Release(np.array([choice]), book.probs[hit:hit + 1], book.conf[hit:hit + 1])
            if np.array_equal(signatures(cand, policies)[0], sig[r]):  # validate the replacement
                out_p[r], out_c[r], covered[r], index[r] = book.probs[hit], book.conf[hit], True, hit
    return Mapping(Release(rel.choice.copy(), out_p, out_c), covered, index)


def bounded_map(rel: Release, policies: list[Policy], books: dict[int, Codebook], alpha: float) -> Mapping:
    native_costs = cost_tensor(rel, policies)
    avail = availability(rel)
    out_p, out_c = rel.probs.copy(), rel.conf.copy()
    covered = np.zeros(len(rel.choice), bool)
    index = np.full(len(rel.choice), -1)
    for choice, book in books.items():
        rows = np.flatnonzero(rel.choice == choice)
        if rows.size == 0:
            continue
        book_rel = book.release()
        book_costs = cost_tensor(book_rel, policies)
        book_avail = availability(book_rel)
        groups: dict[bytes, list[int]] = {}
        for r in rows:  # identical native costs and availability share one search
            groups.setdefault(bytes(np.round(native_costs[r], 9)) + bytes([avail[r]]), []).append(r)
        for members in groups.values():
            r0 = members[0]
            feasible = (book_avail == avail[r0]) & np.all(book_costs <= native_costs[r0] + alpha + 1e-9, axis=1)
            if not feasible.any():
                continue
            hit = int(np.argmax(feasible))
            for r in members:
                out_p[r], out_c[r], covered[r], index[r] = book.probs[hit], book.conf[hit], True, hit
    return Mapping(Release(rel.choice.copy(), out_p, out_c), covered, index)


def payload_changed(native: Release, released: Release) -> np.ndarray:
    same_p = np.all(np.isclose(np.nan_to_num(native.probs, nan=-1), np.nan_to_num(released.probs, nan=-1), atol=1e-12), axis=1)
    same_c = np.isclose(np.nan_to_num(native.conf, nan=-1), np.nan_to_num(released.conf, nan=-1), atol=1e-12)
    return ~(same_p & same_c & (native.choice == released.choice))


def verify(native: Release, released: Release, policies: list[Policy], truth: np.ndarray) -> dict:
    """Per workflow: complete plans equal, all-hypothetical-truth costs equal, realized cost equal."""
    plans_equal = costs_equal = realized_equal = 0
    for p in policies:
        a, b = p.plans(native), p.plans(released)
        ca, cb = p.costs.plan_costs(a), p.costs.plan_costs(b)
        plans_equal += int((a == b).sum())
        costs_equal += int(np.all(np.isclose(ca, cb), axis=1).sum())
        rows = np.arange(len(truth))
        realized_equal += int(np.isclose(ca[rows, truth], cb[rows, truth]).sum())
    total = len(truth) * len(policies)
    return {"comparisons": total, "plans_preserved": plans_equal, "costs_preserved": costs_equal,
            "realized_costs_preserved": realized_equal}
