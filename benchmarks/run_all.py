"""Runs every benchmark script in this folder and saves each JSON summary in benchmarks/results/."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    out_dir = HERE / "results"
    out_dir.mkdir(exist_ok=True)
    failed = []
    for script in sorted(HERE.glob("*.py")):
        if script.name in {"run_all.py"} or script.name.startswith("_"):
            continue
        print(f"== {script.name}", flush=True)
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
        if proc.returncode != 0:
            failed.append(script.name)
            print(proc.stderr[-2000:], file=sys.stderr)
            continue
        (out_dir / f"{script.stem}.json").write_text(proc.stdout)
        print(proc.stdout[-1500:])
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
