"""run_python: execute model-written Python in the sandbox and report a clear outcome."""
from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import cgroups
from .classify import classify
from .mechanism import Isolation, bwrap_argv, isolation, runtime_roots
from .limits import SandboxLimits, SandboxResult
from .scratch import RunDir

LAUNCHER = Path(__file__).with_name("launcher.py")
_READ_CHUNK = 65536
_DRAIN_AFTER_KILL_S = 2.0


def run_python(code: str, files: dict[str, Path] | None = None,
               limits: SandboxLimits | None = None, stdin: str | None = None, *,
               timeout_s: float | None = None, memory_mb: int | None = None) -> SandboxResult:
    """Run `code` as a script in a fresh sandbox whose cwd holds copies of `files`.

    `files` maps a relative name inside the scratch directory to a host file (or directory)
    that is copied there; nothing else from the host is readable or writable. `timeout_s` and
    `memory_mb` are shorthands overriding `limits.wall_s` / `limits.memory_mb`.
    Never raises for anything the code does; raises BadInput for a bad `files` mapping.
    """
    limits = (limits or SandboxLimits()).with_overrides(wall_s=timeout_s, memory_mb=memory_mb)
    iso = isolation()
    started = time.monotonic()
    if iso.problem:
        return _refused(iso, iso.problem, started)
    with RunDir(iso.uid, iso.gid) as run_dir:
        run_dir.copy_inputs(files)
        run_dir.write_code(code, iso.uid if iso.uid is not None else os.getuid())
        group = _create_cgroup(iso, limits)
        try:
            captured = _execute(iso, limits, run_dir, group, stdin)
            stats = group.stats() if group else cgroups.CgroupStats()
        finally:
            if group:
                group.kill_all()
                group.remove()
        outputs, omitted = run_dir.collect_outputs(limits.outputs_bytes) if captured.ready else ({}, ())
    return _result(iso, limits, captured, stats, group is not None, outputs, omitted, started)


def _result(iso: Isolation, limits: SandboxLimits, captured: "_Captured", stats: cgroups.CgroupStats,
            with_cgroup: bool, outputs: dict[str, bytes], omitted: tuple[str, ...],
            started: float) -> SandboxResult:
    outcome = classify(captured.ready, captured.timed_out, captured.returncode,
                       captured.stderr.text(), stats, limits)
    truncated = captured.stdout.truncated or captured.stderr.truncated
    return SandboxResult(
        status=outcome.status, returncode=captured.returncode if captured.ready else None,
        stdout=captured.stdout.text(), stderr=captured.stderr.text(),
        duration_s=round(time.monotonic() - started, 3), reason=outcome.reason,
        stdout_truncated=captured.stdout.truncated, stderr_truncated=captured.stderr.truncated,
        outputs=outputs, outputs_omitted=omitted,
        limits_hit=outcome.limits_hit + (("output",) if truncated else ()),
        mechanism=iso.describe(cgroups_in_force=with_cgroup),
        cpu_time_s=stats.cpu_time_s, peak_memory_mb=stats.peak_memory_mb)


def _refused(iso: Isolation, problem: str, started: float) -> SandboxResult:
    return SandboxResult(status="denied", returncode=None, stdout="", stderr="",
                         duration_s=round(time.monotonic() - started, 3),
                         reason=f"The sandbox refused to run the code: {problem}.",
                         mechanism=iso.describe())


def _create_cgroup(iso: Isolation, limits: SandboxLimits) -> cgroups.SandboxCgroup | None:
    if not iso.cgroups:
        return None
    try:
        return cgroups.SandboxCgroup.create(limits)
    except OSError:
        return None  # rlimits still bound every process; the mechanism string says so


@dataclass
class _Stream:
    cap: int
    data: bytearray = field(default_factory=bytearray)
    total: int = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.data)

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass
class _Captured:
    stdout: _Stream
    stderr: _Stream
    ready: bool = False
    timed_out: bool = False
    returncode: int | None = None


def _address_space_bytes(limits: SandboxLimits, with_cgroup: bool) -> int:
    """RLIMIT_AS. The memory cgroup bounds what the sandbox really uses (resident pages, tmpfs),
    so with it the address-space limit only stops absurd reservations: libraries reserve far
    more than they touch (DuckDB segfaults when a reservation fails under a tight RLIMIT_AS).
    Without a cgroup it is the only memory bound, so it equals the limit."""
    mb = max(4 * limits.memory_mb, limits.memory_mb + 2048) if with_cgroup else limits.memory_mb
    return mb * 1024 * 1024


def _rlimits(limits: SandboxLimits, with_cgroup: bool) -> dict[str, list[int]]:
    address_space = _address_space_bytes(limits, with_cgroup)
    return {
        "RLIMIT_AS": [address_space, address_space],
        "RLIMIT_CPU": [limits.cpu_s, limits.cpu_s + 1],  # SIGXCPU first, SIGKILL a second later
        "RLIMIT_NPROC": [limits.max_procs, limits.max_procs],
        "RLIMIT_FSIZE": [limits.file_size_mb * 1024 * 1024] * 2,
        "RLIMIT_CORE": [0, 0],
        "RLIMIT_NOFILE": [1024, 1024],
    }


def _launch_spec(iso: Isolation, limits: SandboxLimits, run_dir: RunDir,
                 group: cgroups.SandboxCgroup | None, ready_fd: int) -> str:
    stage_mounts, runtime_binds = [], []
    for index, root in enumerate(runtime_roots()):
        if iso.as_root:  # bwrap runs as nobody: give it a reachable mount of the runtime
            stage = str(run_dir.stage_dir(index))
            stage_mounts.append([root, stage])
            runtime_binds.append((stage, root))
        else:
            runtime_binds.append((root, root))
    boot_spec = json.dumps({"ready_fd": ready_fd, "rlimits": _rlimits(limits, group is not None),
                            "python": sys.executable, "python_flags": ["-s", "-B"],
                            "script": "/sandbox/main.py"})
    argv = bwrap_argv(iso, limits, scratch=run_dir.scratch, code_dir=run_dir.code,
                      runtime_binds=runtime_binds, boot_spec=boot_spec)
    return json.dumps({"stage_mounts": stage_mounts,
                       "cgroup_procs": group.procs_files if group else [],
                       "uid": iso.uid, "gid": iso.gid, "argv": argv})


def _execute(iso: Isolation, limits: SandboxLimits, run_dir: RunDir,
             group: cgroups.SandboxCgroup | None, stdin: str | None) -> _Captured:
    ready_r, ready_w = os.pipe()
    stdin_file = None
    if stdin is not None:
        stdin_path = run_dir.path / "stdin"
        stdin_path.write_text(stdin, encoding="utf-8")
        stdin_file = open(stdin_path, "rb")
    try:
        spec = _launch_spec(iso, limits, run_dir, group, ready_w)
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(LAUNCHER), spec],
            stdin=stdin_file if stdin_file else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(ready_w,),
            start_new_session=True, env={"PATH": "/usr/bin:/bin"}, cwd=run_dir.path)
    finally:
        os.close(ready_w)
        if stdin_file:
            stdin_file.close()
    captured = _Captured(_Stream(limits.output_bytes), _Stream(limits.output_bytes))
    try:
        _pump(proc, ready_r, captured, limits.wall_s, group)
    finally:
        os.close(ready_r)
        _kill_tree(proc, group)
        captured.returncode = proc.wait()
    return captured


def _pump(proc: subprocess.Popen, ready_r: int, captured: _Captured, wall_s: float,
          group: cgroups.SandboxCgroup | None) -> None:
    """Read stdout/stderr/ready until all close; kill the sandbox at the wall deadline."""
    sel = selectors.DefaultSelector()
    sinks = {proc.stdout.fileno(): captured.stdout, proc.stderr.fileno(): captured.stderr, ready_r: None}
    for fd in sinks:
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    deadline = time.monotonic() + wall_s
    drain_until = None
    try:
        # Until the pipes close AND the sandbox exits: code may close stdout and keep running.
        while sel.get_map() or proc.poll() is None:
            now = time.monotonic()
            if drain_until is None and now >= deadline:
                captured.timed_out = True
                _kill_tree(proc, group)
                drain_until = now + _DRAIN_AFTER_KILL_S
            if drain_until is not None and now >= drain_until:
                break
            limit = (drain_until or deadline) - now
            if not sel.get_map():
                time.sleep(max(0.0, min(limit, 0.02)))
                continue
            for key, _ in sel.select(timeout=max(0.0, min(limit, 1.0))):
                _read_into(sel, key.fd, sinks[key.fd], captured)
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()


def _read_into(sel: selectors.BaseSelector, fd: int, sink: _Stream | None, captured: _Captured) -> None:
    try:
        chunk = os.read(fd, _READ_CHUNK)
    except BlockingIOError:
        return
    if not chunk:
        sel.unregister(fd)
    elif sink is None:
        captured.ready = captured.ready or chunk.startswith(b"ready")
    else:
        sink.feed(chunk)


def _kill_tree(proc: subprocess.Popen, group: cgroups.SandboxCgroup | None) -> None:
    """SIGKILL the launcher/bwrap session; bwrap's pid-1 dying takes its whole pid namespace."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if group:
        group.kill_all()
