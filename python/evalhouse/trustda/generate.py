"""`evalhouse generate -b trustda`: source tasks, candidates, validation, accepted packages.

One run of kind ``trustda.generate`` (config: scale, seed, DABench folder, operators per task,
builder model). Rerunning the same config resumes: landed source tasks and candidates are
skipped. Candidates are built in worker processes; rows land in batches.
"""
from __future__ import annotations

import hashlib
import os
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..benchmarks import JobOptions
from ..config import PROJECT_ROOT
from ..runs import open_run
from .build import build_task_candidates, candidate_id
from .operators import ORDERED, NotApplicable
from .protocols import SourceTask

DEFAULT_DABENCH = PROJECT_ROOT.parent / "shared" / "data" / "dabench-dev"
# Operators whose applicability is rare are always tried; the others are sampled per task so the
# paper-scale build stays within its time budget while every operator keeps broad coverage.
ALWAYS = {"file_missing", "structural_context_missing", "excel_hierarchical_header_relayout",
          "excel_cross_sheet_relayout", "deep_analysis_missing", "csv_relational_decomposition",
          "equivalent_value_reencoding"}
OPS_PER_TASK = {"paper": 3, "ci": 2}  # sampled operators per task, besides the rare ones
BATCH = 400


def dabench_dir(opts: JobOptions) -> Path | None:
    explicit = opts.extra.get("dabench_dir") or os.environ.get("EVALHOUSE_DABENCH_DIR")
    if explicit:
        return Path(explicit)
    if opts.extra.get("dabench", True) and DEFAULT_DABENCH.is_dir():
        return DEFAULT_DABENCH
    return None


def run_config(opts: JobOptions) -> dict:
    d = dabench_dir(opts)
    return {"scale": opts.scale, "seed": opts.seed, "dabench_dir": str(d) if d else None,
            "ops_per_task": opts.extra.get("ops_per_task", OPS_PER_TASK.get(opts.scale, 9)),
            "dabench_limit": opts.extra.get("dabench_limit", 6 if opts.scale == "ci" else None),
            "builder_model": opts.builder_model, "tag": opts.run_tag}


def collect_sources(config: dict) -> tuple[list[SourceTask], list[dict]]:
    from .builtin import build_sources
    from .dabench import import_dabench

    tasks, issues = build_sources(config["scale"])
    issues = [{"dataset": "builtin", **i} for i in issues]
    if config["dabench_dir"]:
        more, problems = import_dabench(Path(config["dabench_dir"]), limit=config["dabench_limit"])
        tasks += more
        issues += problems
    return tasks, issues


CI_ALWAYS = ALWAYS | {"unit_scale_conversion", "csv_wide_long_reshape", "non_observation_row_injection"}


def plan_operators(task: SourceTask, seed: int, per_task: int, turn: int = 0, always=ALWAYS) -> list[str]:
    """Operators to construct for a task: every applicable rare one plus a rotating, seeded share
    of the others (``turn`` = the task's position, so operators are spread evenly over tasks)."""
    applicable = []
    for spec in ORDERED:
        if task.files and not any(f.lower().endswith(spec.extensions) for f in task.files):
            continue
        try:
            spec.impl.select(task)
        except NotApplicable:
            continue
        except Exception:  # noqa: BLE001 - a selector bug must not stop the build; construct will record it
            pass
        applicable.append(spec.name)
    rare = [n for n in applicable if n in always]
    common = [n for n in applicable if n not in always]
    rng = random.Random(int(hashlib.sha256(f"{seed}:{task.source_task_id}".encode()).hexdigest()[:16], 16))
    if common:
        start = (turn + rng.randrange(2)) % len(common)
        common = common[start:] + common[:start]
    keep = rare + common[:max(0, per_task)]
    order = {s.name: i for i, s in enumerate(ORDERED)}
    return sorted(set(keep), key=order.get)


def source_row(task: SourceTask) -> dict:
    from .answer_path import load_package
    from .package import package_dir
    from .operators.dbops import columns, qi, tables

    con = load_package(package_dir(task.package_path))
    try:
        profile = [{"table": t, "rows": con.execute(f"select count(*) from {qi(t)}").fetchone()[0],
                    "cols": len(columns(con, t))} for t in tables(con)]
    finally:
        con.close()
    return {"item_id": task.source_task_id, "dataset": task.dataset, "question": task.question,
            "constraints": task.constraints, "answer_format": task.answer_format, "category": task.category,
            "level": task.level, "file_kind": task.meta.get("file_kind", "csv"), "files": task.files,
            "package_path": task.package_path, "package_hash": task.package_hash, "gold_sql": task.gold_sql,
            "answer_names": task.answer_names, "label_pairs": [list(p) for p in task.reference_pairs],
            "fields_used": [list(f) for f in task.fields_used], "steps": task.steps, "meta": task.meta,
            "table_profile": profile}


def generate(opts: JobOptions) -> None:
    from rich.progress import Progress

    config = run_config(opts)
    with open_run("trustda.generate", config, benchmark="trustda") as run:
        tasks, issues = collect_sources(config)
        done_sources = run.done_items("trustda_source_tasks")
        rows = [source_row(t) for t in tasks if t.source_task_id not in done_sources]
        for i in range(0, len(rows), BATCH):
            run.write("trustda_source_tasks", rows[i:i + BATCH])
        if issues and not run.done_items("trustda_source_issues"):
            run.write("trustda_source_issues", [{"item_id": f"issue-{i}", **x} for i, x in enumerate(issues)])
        done = run.done_items("trustda_candidates")
        always = CI_ALWAYS if config["scale"] == "ci" else ALWAYS
        plans = [(t, [op for op in plan_operators(t, config["seed"], config["ops_per_task"] - (t.dataset == "dabench"), i, always)
                      if candidate_id(t, op) not in done]) for i, t in enumerate(tasks)]
        plans = [(t, ops) for t, ops in plans if ops]
        total = sum(len(ops) for _, ops in plans)
        buffer: list[dict] = []
        with Progress(transient=True) as progress, ProcessPoolExecutor(max_workers=_workers()) as pool:
            bar = progress.add_task("trustda candidates", total=total)
            futures = [pool.submit(build_task_candidates, t.model_dump_json(), config["seed"], ops, set())
                       for t, ops in plans]
            for fut in futures:
                made = fut.result()
                buffer += made
                progress.advance(bar, len(made))
                if len(buffer) >= BATCH:
                    run.write("trustda_candidates", buffer)
                    buffer = []
        if buffer:
            run.write("trustda_candidates", buffer)
        if config["builder_model"]:
            from .llm_builder import run_llm_builder

            run_llm_builder(run, tasks, opts)


def _workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))
