"""TUPLE-Bench part 2 timing: frozen workflows (18 per system x domain x view), utility
bootstrap, strict WCPQ + bounded extension with defense-aware decoders, field ablations; and
WCPQ mapping throughput. Reads the releases at EVALHOUSE_DB (or builds a paper-scale warehouse once in the temp dir); prints a JSON summary."""
from __future__ import annotations

import json
import time

from evalhouse.tuplebench import part2_job
from evalhouse.tuplebench.recovery_job import load_release_frame


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
    result = part2_job.compute(frame, seed=42)
    wall = time.perf_counter() - t0
    timings = {k: (round(v, 2) if isinstance(v, float) else v) for k, v in result["timings"].items()}
    print(json.dumps({"worlds": int(frame["world_id"].nunique()), "systems": int(frame["system"].nunique()),
                      "wall_seconds": round(wall, 2), **timings,
                      "rows": {t: len(r) for t, r in result["tables"].items()}}, indent=2))


if __name__ == "__main__":
    main()
