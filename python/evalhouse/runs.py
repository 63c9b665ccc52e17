"""The run registry: every job opens a run, writes batches into the landing zone and closes it.

A run's id is derived from its kind and configuration, so re-running the same job resumes it:
``done_items`` lists what already landed and the job skips it.
"""
from __future__ import annotations

import hashlib
import traceback
import uuid
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .config import code_version
from .landing import LandingZone, RunLock, canonical_json, now_utc


def run_id_for(kind: str, config: dict[str, Any]) -> str:
    digest = hashlib.sha256(f"{kind}\n{canonical_json(config)}".encode()).hexdigest()[:12]
    return f"{kind.replace('.', '-')}-{digest}"


class Run:
    def __init__(self, run_id: str, kind: str, benchmark: str, config: dict, zone: LandingZone):
        self.run_id = run_id
        self.kind = kind
        self.benchmark = benchmark
        self.config = config
        self.zone = zone
        self.counts: Counter[str] = Counter()

    def done_items(self, table: str) -> set[str]:
        return self.zone.done_items(table, self.run_id)

    def write(self, table: str, rows: list[dict[str, Any]]) -> None:
        self.zone.write(table, self.run_id, rows)
        self.counts[f"{table}.rows"] += len(rows)

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] += n

    def _event(self, event: str, error: str | None = None) -> None:
        self.zone.write("run_events", self.run_id, [{
            "item_id": f"{event}-{uuid.uuid4().hex}",
            "kind": self.kind,
            "benchmark": self.benchmark,
            "event": event,
            "config": self.config,
            "code_version": code_version(),
            "counts": dict(self.counts),
            "error": error,
        }])


@contextmanager
def open_run(kind: str, config: dict[str, Any], *, benchmark: str = "common",
             run_id: str | None = None, landing_root: Path | None = None) -> Iterator[Run]:
    """Open (or resume) a run; records started/finished/failed events with counts."""
    zone = LandingZone(landing_root)
    rid = run_id or run_id_for(kind, config)
    with RunLock(zone.root, rid):
        run = Run(rid, kind, benchmark, config, zone)
        run._event("started")
        try:
            yield run
        except BaseException as exc:  # record, then re-raise (KeyboardInterrupt included)
            run._event("failed", error="".join(traceback.format_exception_only(type(exc), exc)).strip())
            raise
        run._event("finished")
