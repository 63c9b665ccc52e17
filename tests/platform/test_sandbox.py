"""The sandbox contains hostile model-written programs and reports each as a clear outcome.

Every test runs real code through real bubblewrap namespaces, rlimits and cgroups; the
harness (this pytest process) keeps going after each one.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from evalhouse.errors import BadInput
from evalhouse.sandbox import SandboxLimits, isolation, run_python
from evalhouse.sandbox import cgroups
from evalhouse.sandbox.scratch import base_dir

FAST = SandboxLimits(wall_s=30, cpu_s=10, memory_mb=512, max_procs=32)


@pytest.fixture
def public_dir():
    """A world-readable, world-writable host directory outside /tmp.

    Permissions would let the sandbox uid in, so only the mount namespace keeps it out.
    """
    path = Path(tempfile.mkdtemp(prefix="evalhouse-sandbox-test-", dir="/var/tmp"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def listener():
    """A real TCP server on the host's 127.0.0.1 that counts accepted connections."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    accepted, stop = [], threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            accepted.append(conn)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join()
    server.close()


def _attempts(result) -> dict:
    assert result.status == "ok", result
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_isolation_is_the_strong_mechanism_on_this_machine():
    iso = isolation()
    assert iso.problem is None
    expected_uid = 65534 if os.geteuid() == 0 else None  # as root, bwrap itself runs as nobody
    assert iso.uid == expected_uid
    res = run_python("print('hi')", limits=FAST)
    assert res.status == "ok" and res.stdout == "hi\n"
    assert "bubblewrap" in res.mechanism and "network" in res.mechanism
    expected_layer = "cgroup v1" if cgroups.available() else "rlimits only"
    assert expected_layer in res.mechanism


def test_pandas_reads_a_copy_of_the_provided_csv(tmp_path):
    csv = tmp_path / "sales.csv"
    frame = pd.DataFrame({"region": ["n", "s", "n", "e", "s"], "amount": [3.5, 1.25, 4.0, 2.0, 6.0]})
    frame.to_csv(csv, index=False)
    code = (
        "import pandas as pd, os\n"
        "df = pd.read_csv('sales.csv')\n"
        "print(df.groupby('region')['amount'].sum().to_json())\n"
        "print(sorted(os.listdir('.')))\n"
    )
    res = run_python(code, files={"sales.csv": csv}, limits=FAST)
    assert res.status == "ok", res
    expected = frame.groupby("region")["amount"].sum().to_dict()
    first, second = res.stdout.splitlines()
    assert json.loads(first) == expected
    assert second == "['sales.csv']"  # the copy only; no code file, no other inputs
    assert res.outputs == {}  # an unchanged input copy is not an output


def test_code_modifying_its_copy_leaves_the_original_unchanged(tmp_path):
    original = tmp_path / "data.csv"
    original.write_text("a,b\n1,2\n")
    before = original.read_bytes()
    code = (
        "with open('data.csv', 'a') as f: f.write('99,99\\n')\n"
        "open('result.json', 'w').write('{\"rows\": 2}')\n"
    )
    res = run_python(code, files={"data.csv": original}, limits=FAST)
    assert res.status == "ok", res
    assert original.read_bytes() == before
    assert res.outputs == {"data.csv": b"a,b\n1,2\n99,99\n", "result.json": b'{"rows": 2}'}


def test_infinite_loop_times_out_and_the_harness_carries_on():
    started = time.monotonic()
    res = run_python("print('started', flush=True)\nwhile True:\n    pass\n",
                     limits=SandboxLimits(wall_s=2, cpu_s=30))
    elapsed = time.monotonic() - started
    assert res.status == "timeout", res
    assert "wall" in res.limits_hit and "2 s wall-time limit" in res.reason
    assert res.stdout == "started\n"  # output written before the kill is kept
    assert 2 <= elapsed < 5
    assert run_python("print(6 * 7)", limits=FAST).stdout == "42\n"


def test_cpu_limit_kills_a_busy_process():
    # a generous wall limit: on a loaded machine one CPU-second can take several wall seconds
    res = run_python("while True:\n    pass\n", limits=SandboxLimits(wall_s=40, cpu_s=1))
    assert res.status == "killed", res
    assert res.limits_hit == ("cpu",) and "CPU-time limit" in res.reason


@pytest.mark.parametrize("use_cgroups", ["1", "0"], ids=["cgroup+rlimits", "rlimits-only"])
def test_memory_bomb_is_killed_for_memory(monkeypatch, use_cgroups):
    if use_cgroups == "1" and not cgroups.available():
        pytest.skip("needs writable cgroup v1 hierarchies")
    monkeypatch.setenv("EVALHOUSE_SANDBOX_CGROUPS", use_cgroups)
    res = run_python("hoard = []\nwhile True:\n    hoard.append(b'x' * 10**6)\n",
                     limits=SandboxLimits(wall_s=20, memory_mb=256))
    assert res.status == "killed", res
    assert "memory" in res.limits_hit and "memory limit of 256 MB" in res.reason
    if use_cgroups == "1":  # the cgroup's OOM killer stops it at 256 MB resident
        assert res.returncode == 137 and res.peak_memory_mb <= 256 + 1
    else:  # RLIMIT_AS alone: the allocation fails inside Python
        assert "MemoryError" in res.stderr


@pytest.mark.skipif(not cgroups.available(), reason="needs writable cgroup v1 hierarchies")
def test_memory_spread_over_processes_is_bounded_by_the_cgroup():
    # each child stays under the per-process RLIMIT_AS; together they exceed the cgroup limit
    code = (
        "import os, time\n"
        "for _ in range(4):\n"
        "    if os.fork() == 0:\n"
        "        block = b'x' * (150 * 2**20)\n"
        "        time.sleep(2)\n"
        "        os._exit(0)\n"
        "for _ in range(4):\n"
        "    os.wait()\n"
    )
    res = run_python(code, limits=SandboxLimits(wall_s=20, memory_mb=256))
    assert res.status == "killed", res
    assert "memory" in res.limits_hit
    assert res.peak_memory_mb is not None and res.peak_memory_mb <= 256 + 1
    assert res.duration_s < 15


def _processes_with_marker(marker: bytes) -> int:
    count = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                count += marker in Path(f"/proc/{pid}/environ").read_bytes()
            except OSError:
                pass
    return count


@pytest.mark.parametrize("use_cgroups", ["1", "0"], ids=["cgroup+rlimits", "rlimits-only"])
def test_fork_bomb_is_contained_and_leaves_nothing_behind(monkeypatch, use_cgroups):
    if use_cgroups == "1" and not cgroups.available():
        pytest.skip("needs writable cgroup v1 hierarchies")
    monkeypatch.setenv("EVALHOUSE_SANDBOX_CGROUPS", use_cgroups)
    marker = f"BOMB_{uuid.uuid4().hex}"
    code = (
        "import os\n"
        f"os.environ['{marker}'] = '1'\n"
        "os.execv('/proc/self/exe', ['python', '-c', 'import os\\nwhile True:\\n"
        "    try:\\n        os.fork()\\n    except OSError:\\n        pass'])\n"
    )
    limits = SandboxLimits(wall_s=3, max_procs=16)
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(run_python, code, None, limits)
        peak = 0
        while not future.done():
            peak = max(peak, _processes_with_marker(marker.encode()))
            time.sleep(0.05)
        res = future.result()
    if use_cgroups == "1":  # the pids cgroup counts refused forks for the reason
        assert res.status == "killed", res
        assert "procs" in res.limits_hit and "process limit of 16" in res.reason
    else:  # RLIMIT_NPROC alone: the bomb spins on refused forks until the wall limit
        assert res.status == "timeout" and "no cgroup" in res.mechanism, res
    assert 0 < peak <= limits.max_procs
    assert _processes_with_marker(marker.encode()) == 0
    started = time.monotonic()
    assert run_python("print('alive')", limits=FAST).stdout == "alive\n"
    assert time.monotonic() - started < 5


def test_socket_connect_to_host_loopback_fails(listener):
    port, accepted = listener
    code = (
        "import socket, json\n"
        "out = {}\n"
        f"for host in ['127.0.0.1', '1.1.1.1']:\n"
        "    try:\n"
        f"        socket.create_connection((host, {port}), timeout=3).close()\n"
        "        out[host] = 'connected'\n"
        "    except OSError as exc:\n"
        "        out[host] = type(exc).__name__ + ': ' + str(exc)\n"
        "print(json.dumps(out))\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
    )
    res = run_python(code, limits=FAST)
    assert res.status == "error", res
    assert "no network" in res.reason
    out = json.loads(res.stdout)
    assert out["127.0.0.1"].startswith("ConnectionRefusedError")
    assert "unreachable" in out["1.1.1.1"]
    time.sleep(0.3)
    assert accepted == []


def test_warehouse_gold_files_and_parent_paths_are_not_readable(public_dir, warehouse):
    project_db = warehouse.db  # the test's own warehouse path (under pytest's tmp dir)
    project_db.parent.mkdir(parents=True, exist_ok=True)
    warehouse = public_dir / "warehouse.duckdb"  # a world-readable copy outside /tmp
    for db in (project_db, warehouse):
        with duckdb.connect(str(db)) as con:
            con.execute("create table gold as select 'secret-gold-42' as answer")
    gold = public_dir / "gold.json"
    gold.write_text('{"answer": "secret-gold-42"}')
    for path in (public_dir, warehouse, gold):
        path.chmod(0o777 if path.is_dir() else 0o644)  # only the namespace can keep them out
    sibling = base_dir() / f"other-item-{uuid.uuid4().hex}.json"  # a neighbour of the run dir
    sibling.write_text('{"answer": "secret-gold-42"}')
    sibling.chmod(0o644)
    code = f"""
import json, os
out = {{}}
def attempt(name, fn):
    try:
        out[name] = "READ: " + str(fn())[:200]
    except Exception as exc:
        out[name] = type(exc).__name__
attempt("project_warehouse", lambda: open({str(project_db)!r}, "rb").read(64))
attempt("warehouse_open", lambda: open({str(warehouse)!r}, "rb").read(64))
attempt("warehouse_duckdb", lambda: __import__("duckdb").connect({str(warehouse)!r}, read_only=True)
        .execute("select * from gold").fetchall())
attempt("gold_abs", lambda: open({str(gold)!r}).read())
attempt("gold_dotdot", lambda: open("../" * 12 + {str(gold)[1:]!r}).read())
attempt("sibling_dotdot", lambda: open("../{sibling.name}").read())
attempt("sibling_dotdot2", lambda: open("../../{sibling.name}").read())
attempt("sibling_abs", lambda: open({str(sibling)!r}).read())
attempt("project", lambda: os.listdir("/work/main/warehouse"))
attempt("root_home", lambda: os.listdir("/root/.ssh"))
out["parent_listing"] = sorted(os.listdir(".."))
print(json.dumps(out))
"""
    try:
        res = run_python(code, limits=FAST)
    finally:
        sibling.unlink()
    attempts = _attempts(res)
    assert "secret-gold-42" not in res.stdout + res.stderr
    for name, outcome in attempts.items():
        if name != "parent_listing":
            assert not outcome.startswith("READ"), (name, outcome)
    assert sibling.name not in attempts["parent_listing"]
    assert "scratch" in attempts["parent_listing"]  # '..' is the sandbox's own empty root


def test_writes_outside_scratch_fail_and_nothing_reaches_the_host(public_dir):
    token = uuid.uuid4().hex
    site_packages = next(p for p in map(Path, __import__("sys").path) if p.name == "site-packages")
    targets = {
        "public_dir": str(public_dir / f"escape-{token}"),
        "dotdot": f"../escape-{token}",
        "dotdot_deep": "../" * 12 + str(public_dir / f"escape2-{token}")[1:],
        "root": f"/escape-{token}",
        "usr": f"/usr/escape-{token}",
        "site_packages": str(site_packages / f"escape-{token}.pth"),
        "sandbox_base": str(base_dir() / f"escape-{token}"),
    }
    code = f"""
import json
out = {{}}
for name, path in {targets!r}.items():
    try:
        with open(path, "w") as handle:
            handle.write("escaped")
        out[name] = "WROTE"
    except OSError as exc:
        out[name] = type(exc).__name__
with open("/tmp/private-{token}", "w") as handle:
    handle.write("stays in the sandbox tmpfs")
print(json.dumps(out))
"""
    res = run_python(code, limits=FAST)
    attempts = _attempts(res)
    assert all(outcome != "WROTE" for outcome in attempts.values()), attempts
    host_paths = [public_dir / f"escape-{token}", public_dir / f"escape2-{token}",
                  Path(f"/escape-{token}"), Path(f"/usr/escape-{token}"),
                  site_packages / f"escape-{token}.pth", base_dir() / f"escape-{token}",
                  Path(tempfile.gettempdir()) / f"private-{token}"]
    assert [p for p in host_paths if p.exists()] == []
    assert list(public_dir.iterdir()) == []
    assert res.outputs == {}


def test_output_flood_is_capped():
    code = (
        "import sys\n"
        "for _ in range(200):\n"
        "    sys.stdout.write('x' * 100_000)\n"
        "sys.stderr.write('done flooding\\n')\n"
    )
    res = run_python(code, limits=SandboxLimits(wall_s=20, output_bytes=4096))
    assert res.status == "ok", res
    assert res.stdout_truncated and len(res.stdout) == 4096 and set(res.stdout) == {"x"}
    assert res.stderr == "done flooding\n" and not res.stderr_truncated
    assert "output" in res.limits_hit


def test_symlinks_and_fifos_written_by_the_code_are_not_followed_by_the_harness(public_dir):
    secret = public_dir / "secret.txt"
    secret.write_text("host secret")
    code = (
        "import os\n"
        f"os.symlink({str(secret)!r}, 'link.txt')\n"
        "os.mkfifo('pipe')\n"
        "open('real.txt', 'w').write('fine')\n"
    )
    res = run_python(code, limits=FAST)
    assert res.status == "ok", res
    assert res.outputs == {"real.txt": b"fine"}


def test_concurrent_runs_are_independent(tmp_path):
    inputs = []
    for i in range(3):
        path = tmp_path / f"in{i}.txt"
        path.write_text(str(i))
        inputs.append(path)
    code = "import os\nprint(os.listdir('.'), open('in.txt').read())\n"
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda p: run_python(code, {"in.txt": p}, FAST), inputs))
    assert [r.stdout for r in results] == [f"['in.txt'] {i}\n" for i in range(3)]


def test_bad_input_names_are_rejected(tmp_path):
    source = tmp_path / "a.csv"
    source.write_text("x\n")
    for name in ("../a.csv", "/etc/a.csv", ""):
        with pytest.raises(BadInput):
            run_python("pass", files={name: source}, limits=FAST)
    with pytest.raises(BadInput, match="does not exist"):
        run_python("pass", files={"a.csv": tmp_path / "missing.csv"}, limits=FAST)


def test_missing_bwrap_refuses_to_run(monkeypatch, public_dir):
    marker = public_dir / "ran"
    monkeypatch.setenv("EVALHOUSE_SANDBOX_BWRAP", str(public_dir / "no-such-bwrap"))
    res = run_python(f"open({str(marker)!r}, 'w').write('ran')", limits=FAST)
    assert res.status == "denied" and res.returncode is None
    assert "not installed" in res.reason
    assert not marker.exists()


def test_a_bwrap_that_leaks_the_network_is_refused(monkeypatch, public_dir, listener):
    # A broken bwrap that silently keeps the host network: the in-sandbox self-check must
    # refuse before any model code runs (the code would otherwise reach the host listener).
    port, accepted = listener
    fake = public_dir / "bwrap"
    fake.write_text('#!/bin/sh\nfirst="$1"; shift\nexec /usr/bin/bwrap "$first" --share-net "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("EVALHOUSE_SANDBOX_BWRAP", str(fake))
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3)\nprint('connected')\n"
    res = run_python(code, limits=FAST)
    assert res.status == "denied", res
    assert "network interfaces visible" in res.reason
    assert res.stdout == ""
    time.sleep(0.3)
    assert accepted == []


def test_privilege_games_fail_inside():
    code = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
out = {
    "uid": os.getuid(),
    "new_user_namespace": libc.unshare(0x10000000),
    "mount_tmpfs": libc.mount(b"none", b"/scratch", b"tmpfs", 0, None),
}
try:
    os.setuid(0)
    out["setuid0"] = "succeeded"
except OSError:  # EINVAL: no uid 0 exists in the sandbox's user namespace
    out["setuid0"] = "refused"
print(json.dumps(out))
"""
    attempts = _attempts(run_python(code, limits=FAST))
    assert attempts == {"uid": 65534 if os.geteuid() == 0 else os.getuid(), "new_user_namespace": -1,
                        "mount_tmpfs": -1, "setuid0": "refused"}
