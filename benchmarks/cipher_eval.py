"""CIPHER evaluation cost: built-in systems + scoring over every instance x 2 conditions x 2 settings.

Builds a private warehouse (generation + dbt build are NOT timed: they are part 1's cost), then
times (1) the built-in run: oracle-sql, structured-only-sql, BM25/dense/rerank retrieval answerers,
candidate sets, retrieval pools and prompt sizes; (2) the rule-judge scoring; (3) the dbt build of
the evaluation models (tag cipher_eval). Prints one JSON object with the timings, the built-in systems' M1/M2/M3 and
prompt tokens per LLM method (the README table).

    .venv/bin/python benchmarks/cipher_eval.py [--scale paper|ci] [--keep DIR | --reuse DIR] [--run-tag T]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path


# CIPHER's data marts the evaluation reads (and their ancestors); other benchmarks are not built.
DATA_MODELS = ("+tag:cipher_eval +cipher_records +cipher_fir_view +cipher_cfpb_view +cipher_mimic_view "
               "+cipher_benchmark_stats +cipher_audit_retention")


def _timed(fn, *args):
    start = time.perf_counter()
    with contextlib.redirect_stdout(sys.stderr):  # job messages must not mix with the JSON summary
        fn(*args)
    return round(time.perf_counter() - start, 2)


def main(scale: str, root: Path, reuse: bool = False, run_tag: str = "") -> dict:
    os.environ["EVALHOUSE_DB"] = str(root / "evalhouse.duckdb")
    os.environ["EVALHOUSE_REPORTS"] = str(root / "reports")
    from evalhouse.benchmarks import JobOptions
    from evalhouse.cipher import evaluate
    from evalhouse.cipher.generate import generate
    from evalhouse.dbt_runner import dbt_build
    from evalhouse.warehouse import query_df

    opts = JobOptions(scale=scale, run_tag=run_tag)
    setup = {} if reuse else {"generate_s": _timed(generate, opts), "dbt_build_s": _timed(dbt_build, DATA_MODELS)}
    n_items = len(evaluate.load_items())
    timings = {
        "builtin_run_s": _timed(evaluate.run, opts),
        "rule_judge_s": _timed(evaluate.judge, opts),
        "dbt_build_eval_marts_s": _timed(dbt_build, "tag:cipher_eval"),
    }
    builtin = query_df("""
        select system, condition, setting, n_instances, round(m1, 1) m1, round(m2, 1) m2, round(m3, 1) m3
        from cipher_results where family = 'builtin' and domain = '(all)' and operation = '(all)'
          and answer_type = '(all)' and is_latest_run order by setting, condition, system""")
    tokens = query_df("""
        select method, domain, round(mean_tokens) mean_tokens, round(median_tokens) median_tokens,
               round(p95_tokens) p95_tokens, max_tokens
        from cipher_eval_prompt_tokens where condition = 'redacted' and setting = 'support_controlled'
        order by domain, method""")
    recall = query_df("""
        select retriever, k, round(mean_recall, 1) mean_recall from cipher_retrieval
        where domain = '(all)' and condition = 'redacted' and setting = 'support_controlled'
          and run_id = (select min(run_id) from cipher_results where is_latest_run and system = 'oracle-sql')
        order by retriever, k""")
    return {"benchmark": "cipher_eval", "scale": scale, "cpu_count": os.cpu_count(),
            "items_instance_x_condition_x_setting": n_items, "setup_untimed": setup, **timings,
            "builtin_results": builtin.to_dict("records"), "prompt_tokens": tokens.to_dict("records"),
            "retrieval_recall": recall.to_dict("records")}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", default="paper", choices=["paper", "ci"])
    parser.add_argument("--keep", type=Path, default=None, help="build the warehouse here and keep it")
    parser.add_argument("--reuse", type=Path, default=None,
                        help="an already generated and built warehouse directory (skips the set-up)")
    parser.add_argument("--run-tag", default="bench", help="fresh evaluation runs (not resumed ones)")
    args = parser.parse_args()
    if args.reuse:
        print(json.dumps(main(args.scale, args.reuse, reuse=True, run_tag=args.run_tag), indent=1, default=str))
    elif args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        print(json.dumps(main(args.scale, args.keep, run_tag=args.run_tag), indent=1, default=str))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(main(args.scale, Path(tmp), run_tag=args.run_tag), indent=1, default=str))
