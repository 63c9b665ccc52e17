"""A real landing-zone job for the crash tests: lands items 0..N-1 in batches, resuming by item_id.

Usage: python landing_writer_job.py N BATCH ROW_DELAY_S [HOLD_FILE]
Each row takes ROW_DELAY_S to "compute", so a kill lands mid-batch with rows in memory.
While HOLD_FILE exists the job also never finishes its last batch, so a test can act while the
job is certainly still writing.
"""
import os
import sys
import time

from evalhouse.landing import declare
from evalhouse.runs import open_run

declare("crash_test_items", {"value": "int", "payload": "string"})


def main(n: int, batch: int, delay: float, hold: str | None) -> None:
    with open_run("test.crash_writer", {"n": n}, benchmark="common") as run:
        done = run.done_items("crash_test_items")
        todo = [i for i in range(n) if f"item-{i}" not in done]
        print(f"resuming with {len(done)} done, {len(todo)} to go", flush=True)
        rows = []
        for i in todo:
            time.sleep(delay)
            rows.append({"item_id": f"item-{i}", "value": i * i, "payload": "x" * 100})
            if len(rows) == batch:
                run.write("crash_test_items", rows)
                print(f"wrote batch ending at {i}", flush=True)
                rows = []
        while hold and os.path.exists(hold):
            time.sleep(0.05)
        run.write("crash_test_items", rows)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else None)
