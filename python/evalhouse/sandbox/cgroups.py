"""Per-run cgroup (v1) that bounds a sandbox as a whole: processes, memory, CPU share.

rlimits bound each process; a cgroup bounds the sandbox's process tree together (a fork
bomb that allocates in every child, a tmpfs filled to the brim). Each run gets a leaf
`evalhouse-sandbox/<run>` in every hierarchy: a parent of our own, never a directory inside
someone else's cgroup (a leaf left there by a crash would block its owner's rmdir). Optional:
without writable v1 hierarchies, or with EVALHOUSE_SANDBOX_CGROUPS=0, the sandbox runs on
rlimits alone and says so in its mechanism string.
"""
from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from .limits import SandboxLimits

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("pids", "memory", "cpu", "cpuacct")
_CFS_PERIOD_US = 100_000


PARENT = "evalhouse-sandbox"
_STALE_AFTER_S = 3600


def _hierarchy_dirs() -> dict[str, Path] | None:
    """controller -> our parent cgroup directory (created on first use)."""
    dirs = {}
    for ctrl in CONTROLLERS:
        base = CGROUP_ROOT / ctrl
        if not (base / "cgroup.procs").exists():
            return None
        try:
            (base / PARENT).mkdir(exist_ok=True)
        except OSError:
            return None
        dirs[ctrl] = base / PARENT
    return dirs


def available() -> bool:
    """True when v1 pids/memory/cpu/cpuacct hierarchies exist and we may create cgroups."""
    if os.environ.get("EVALHOUSE_SANDBOX_CGROUPS", "1") == "0":
        return False
    dirs = _hierarchy_dirs()
    return dirs is not None and all(os.access(d, os.W_OK) for d in dirs.values())


def remove_stale(parents: dict[str, Path]) -> None:
    """Remove leaves left by a harness that was killed mid-run (empty and over an hour old)."""
    cutoff = time.time() - _STALE_AFTER_S
    for parent in parents.values():
        for leaf in parent.glob("run-*"):
            try:
                if leaf.stat().st_mtime < cutoff:
                    leaf.rmdir()  # fails while tasks remain: then it is not stale
            except OSError:
                pass


@dataclass
class CgroupStats:
    oom_kills: int = 0
    memory_failcnt: int = 0
    peak_memory_mb: float | None = None
    forks_refused: int = 0
    cpu_time_s: float | None = None


class SandboxCgroup:
    """A leaf cgroup in each controller hierarchy, created with the run's limits."""

    def __init__(self, dirs: dict[str, Path]):
        self.dirs = dirs

    @classmethod
    def create(cls, limits: SandboxLimits) -> "SandboxCgroup":
        parents = _hierarchy_dirs()
        if parents is None:
            raise OSError("cgroup v1 hierarchies pids/memory/cpu/cpuacct are not mounted")
        remove_stale(parents)
        name = f"run-{uuid.uuid4().hex[:12]}"
        group = cls({ctrl: parent / name for ctrl, parent in parents.items()})
        try:
            for path in group.dirs.values():
                path.mkdir()
            group._apply(limits)
        except OSError:
            group.remove()
            raise
        return group

    def _apply(self, limits: SandboxLimits) -> None:
        mem_bytes = str(limits.memory_mb * 1024 * 1024)
        _write(self.dirs["pids"] / "pids.max", str(limits.max_procs))
        _write(self.dirs["memory"] / "memory.limit_in_bytes", mem_bytes)
        memsw = self.dirs["memory"] / "memory.memsw.limit_in_bytes"
        if memsw.exists():  # no escaping the limit into swap
            _write(memsw, mem_bytes)
        _write(self.dirs["cpu"] / "cpu.cfs_period_us", str(_CFS_PERIOD_US))
        _write(self.dirs["cpu"] / "cpu.cfs_quota_us", str(int(limits.cpu_cores * _CFS_PERIOD_US)))

    @property
    def procs_files(self) -> list[str]:
        """Files the launcher writes its pid to (before it drops privileges)."""
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def stats(self) -> CgroupStats:
        mem, stats = self.dirs["memory"], CgroupStats()
        for line in _read(mem / "memory.oom_control").splitlines():
            if line.startswith("oom_kill "):
                stats.oom_kills = int(line.split()[1])
        stats.memory_failcnt = int(_read(mem / "memory.failcnt") or 0)
        peak = _read(mem / "memory.max_usage_in_bytes")
        stats.peak_memory_mb = round(int(peak) / 2**20, 1) if peak else None
        for line in _read(self.dirs["pids"] / "pids.events").splitlines():
            if line.startswith("max "):
                stats.forks_refused = int(line.split()[1])
        usage = _read(self.dirs["cpuacct"] / "cpuacct.usage")
        stats.cpu_time_s = round(int(usage) / 1e9, 3) if usage else None
        return stats

    def pids(self) -> list[int]:
        return [int(p) for p in _read(self.dirs["pids"] / "cgroup.procs").split()]

    def kill_all(self, timeout_s: float = 2.0) -> None:
        """SIGKILL every task until the cgroup is empty (v1 has no cgroup.kill)."""
        deadline = time.monotonic() + timeout_s
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        for path in self.dirs.values():
            for _ in range(100):  # rmdir fails with EBUSY until dying tasks are reaped
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""
