"""TUPLE-Bench part 1 timing: decoders (grouped cross-fitting, validation selection) for every
system x domain x view, then 2,000 pair-clustered bootstrap resamples. Reads the releases of
the warehouse at EVALHOUSE_DB, or of a paper-scale one built once in the temp dir; prints a JSON summary."""
from __future__ import annotations

import json
import time

from evalhouse.tuplebench.recovery_job import decode_frame, load_release_frame, recovery_statistics


def main() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _tuplebench_setup import ensure_releases
    from evalhouse.tuplebench.stats import single_threaded_blas

    ensure_releases()

    with single_threaded_blas():
        _main()


def _main() -> None:
    frame = load_release_frame()
    t0 = time.perf_counter()
    preds, fits = decode_frame(frame, "native", seed=42)
    t1 = time.perf_counter()
    rows = recovery_statistics(preds, frame, seed=42)
    t2 = time.perf_counter()
    print(json.dumps({
        "worlds": int(frame["world_id"].nunique()), "systems": int(frame["system"].nunique()),
        "system_domain_view_cells": int(frame.groupby(["system", "domain", "view"]).ngroups),
        "decoder_fits": fits, "decoder_seconds": round(t1 - t0, 2),
        "bootstrap_resamples": 2000, "statistics": len(rows), "bootstrap_seconds": round(t2 - t1, 2),
        "total_seconds": round(t2 - t0, 2)}, indent=2))


if __name__ == "__main__":
    main()
