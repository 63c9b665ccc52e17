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

from .workflows import K, Policy, Release, plans_for

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
    valid = _valid(probs, conf)
    for choice in range(K):
        books[choice] = Codebook(choice, probs[valid], conf[valid])
    return books


def _valid(probs: np.ndarray, conf: np.ndarray) -> np.ndarray:
    """The native schema check (native.check), vectorized: probabilities in [0, 1] summing to 1,
    confidence absent or in [0, 1]. The choice is the input's, hence always a candidate."""
    in_range = np.all((probs >= 0) & (probs <= 1), axis=1)
    sums = np.abs(probs.sum(axis=1) - 1) <= 1e-9
    conf_ok = np.isnan(conf) | ((conf >= 0) & (conf <= 1))
    return in_range & sums & conf_ok


def availability(rel: Release) -> np.ndarray:
    return ((rel.choice >= 0).astype(int) * 4 + np.isfinite(rel.probs).all(axis=1).astype(int) * 2
            + np.isfinite(rel.conf).astype(int))


def signatures(rel: Release, policies: list[Policy]) -> np.ndarray:
    """n x (2 + len(policies)) integer matrix: choice, availability, every workflow's plan."""
    cols = [rel.choice.astype(np.int64), availability(rel).astype(np.int64)]
    cols += [plans.astype(np.int64) for plans in plans_for(rel, policies)]
    return np.column_stack(cols)


def cost_tensor(rel: Release, policies: list[Policy]) -> np.ndarray:
    """n x (workflows * 4): each workflow's cost under each hypothetical true class."""
    return np.column_stack([p.costs.plan_costs(plans) for p, plans in zip(policies, plans_for(rel, policies))])


@dataclass
class Mapping:
    released: Release
    covered: np.ndarray
    codeword_index: np.ndarray  # -1 for fallbacks


class PreparedCodebooks:
    """Codebooks with their workflow signatures and cost tensors computed once."""

    def __init__(self, books: dict[int, Codebook], policies: list[Policy]):
        self.books = books
        self.policies = policies
        self.sig = {c: signatures(b.release(), policies) for c, b in books.items()}
        self.costs = {c: cost_tensor(b.release(), policies) for c, b in books.items()}
        self.avail = {c: availability(b.release()) for c, b in books.items()}
        self.first: dict[int, dict[bytes, int]] = {}
        for c, sig in self.sig.items():
            first: dict[bytes, int] = {}
            for i, key in enumerate(map(bytes, sig)):
                first.setdefault(key, i)
            self.first[c] = first

    @property
    def size(self) -> int:
        return sum(len(b.conf) for b in self.books.values())


def _apply(rel: Release, book: PreparedCodebooks, hits: np.ndarray) -> Mapping:
    out_p, out_c = rel.probs.copy(), rel.conf.copy()
    covered = hits >= 0
    for r in np.flatnonzero(covered):
        b = book.books[int(rel.choice[r])]
        out_p[r], out_c[r] = b.probs[hits[r]], b.conf[hits[r]]
    return Mapping(Release(rel.choice.copy(), out_p, out_c), covered, hits)


def strict_map(rel: Release, book: PreparedCodebooks) -> Mapping:
    """First codeword with the response's exact workflow signature, else the native response."""
    sig = signatures(rel, book.policies)
    hits = np.array([book.first.get(int(c), {}).get(bytes(s), -1) for c, s in zip(rel.choice, sig)])
    mapping = _apply(rel, book, hits)
    # validate every replacement: recompute its signature, fall back where it differs
    mismatch = mapping.covered & ~np.all(signatures(mapping.released, book.policies) == sig, axis=1)
    if mismatch.any():
        hits = np.where(mismatch, -1, hits)
        mapping = _apply(rel, book, hits)
    return mapping


def bounded_map(rel: Release, book: PreparedCodebooks, alpha: float) -> Mapping:
    """First codeword costing at most native + alpha under every workflow and every truth."""
    native_costs = cost_tensor(rel, book.policies)
    avail = availability(rel)
    hits = np.full(len(rel.choice), -1)
    cache: dict[bytes, int] = {}
    for r in range(len(rel.choice)):
        c = int(rel.choice[r])
        if c not in book.books:
            continue
        key = bytes([c, int(avail[r])]) + np.round(native_costs[r], 9).tobytes()
        if key not in cache:
            feasible = (book.avail[c] == avail[r]) & np.all(book.costs[c] <= native_costs[r] + alpha + 1e-9, axis=1)
            cache[key] = int(np.argmax(feasible)) if feasible.any() else -1
        hits[r] = cache[key]
    return _apply(rel, book, hits)


def payload_changed(native: Release, released: Release) -> np.ndarray:
    same_p = np.all(np.isclose(np.nan_to_num(native.probs, nan=-1), np.nan_to_num(released.probs, nan=-1), atol=1e-12), axis=1)
    same_c = np.isclose(np.nan_to_num(native.conf, nan=-1), np.nan_to_num(released.conf, nan=-1), atol=1e-12)
    return ~(same_p & same_c & (native.choice == released.choice))


def verify(native: Release, released: Release, policies: list[Policy], truth: np.ndarray) -> dict:
    """Per workflow: complete plans equal, all-hypothetical-truth costs equal, realized cost equal."""
    plans_equal = costs_equal = realized_equal = 0
    for p, a, b in zip(policies, plans_for(native, policies), plans_for(released, policies)):
        ca, cb = p.costs.plan_costs(a), p.costs.plan_costs(b)
        plans_equal += int((a == b).sum())
        costs_equal += int(np.all(np.isclose(ca, cb), axis=1).sum())
        rows = np.arange(len(truth))
        realized_equal += int(np.isclose(ca[rows, truth], cb[rows, truth]).sum())
    total = len(truth) * len(policies)
    return {"comparisons": total, "plans_preserved": plans_equal, "costs_preserved": costs_equal,
            "realized_costs_preserved": realized_equal}
