"""Turn how a sandboxed run ended into a status and one sentence that explains it."""
from __future__ import annotations

import re
import signal
from dataclasses import dataclass

from .cgroups import CgroupStats
from .limits import SandboxLimits

_NETWORK_ERRORS = ("ConnectionRefusedError", "Network is unreachable", "gaierror",
                   "Temporary failure in name resolution", "Name or service not known")


@dataclass(frozen=True)
class Outcome:
    status: str
    reason: str
    limits_hit: tuple[str, ...] = ()


def _signal_of(returncode: int | None) -> int | None:
    """bwrap reports a child killed by signal N as exit code 128+N; Popen as -N if bwrap was killed."""
    if returncode is None:
        return None
    if returncode < 0:
        return -returncode
    if returncode > 128 and returncode - 128 < signal.NSIG:
        return returncode - 128
    return None


def last_error_line(stderr: str) -> str:
    """The exception line of a Python traceback (or the last non-empty line)."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b", line):
            return line[:300]
    return lines[-1][:300] if lines else ""


def classify(ready: bool, timed_out: bool, returncode: int | None, stderr: str,
             stats: CgroupStats, limits: SandboxLimits) -> Outcome:
    if not ready:
        detail = last_error_line(stderr) or f"exit code {returncode}"
        return Outcome("denied", f"The sandbox could not be set up, so the code was not run ({detail}).")
    hit = _limits_hit(timed_out, returncode, stderr, stats, limits)
    sig = _signal_of(returncode)
    if "memory" in hit:
        return Outcome("killed", f"The code exceeded the memory limit of {limits.memory_mb} MB and was stopped.", hit)
    if "procs" in hit and (timed_out or returncode != 0):
        how = f"killed at the {limits.wall_s:g} s wall-time limit" if timed_out else f"exited with code {returncode}"
        return Outcome("killed", f"The code hit the process limit of {limits.max_procs} "
                                 f"({stats.forks_refused} process creations refused) and was contained: {how}.", hit)
    if timed_out:
        return Outcome("timeout", f"The code ran longer than the {limits.wall_s:g} s wall-time limit and was killed.", hit)
    if "cpu" in hit:
        return Outcome("killed", f"The code used more than its {limits.cpu_s} s CPU-time limit and was killed.", hit)
    if "file_size" in hit and sig == signal.SIGXFSZ:
        return Outcome("killed", f"The code tried to write a file larger than {limits.file_size_mb} MB and was killed.", hit)
    if sig is not None:
        return Outcome("killed", f"The code was killed by signal {signal.Signals(sig).name}.", hit)
    if returncode != 0:
        error = last_error_line(stderr)
        note = ""
        if any(e in error for e in _NETWORK_ERRORS):
            note = " (the sandbox has no network)"
        elif "file_size" in hit:
            note = f" (files are limited to {limits.file_size_mb} MB)"
        return Outcome("error", f"The code exited with code {returncode}: {error or 'no error message'}{note}.", hit)
    return Outcome("ok", "The code ran to completion with exit code 0.", hit)


def _limits_hit(timed_out: bool, returncode: int | None, stderr: str, stats: CgroupStats,
                limits: SandboxLimits) -> tuple[str, ...]:
    sig = _signal_of(returncode)
    hit = []
    if timed_out:
        hit.append("wall")
    died_of_memory = returncode != 0 and "MemoryError" in last_error_line(stderr)
    if stats.oom_kills > 0 or died_of_memory or (stats.memory_failcnt > 0 and sig == signal.SIGKILL):
        hit.append("memory")
    if stats.forks_refused > 0 or (returncode != 0 and "Resource temporarily unavailable" in stderr
                                   and re.search(r"fork|spawn|Thread|Popen", stderr)):
        hit.append("procs")
    used_cpu = stats.cpu_time_s is not None and stats.cpu_time_s >= limits.cpu_s
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and used_cpu and not timed_out):
        hit.append("cpu")
    if sig == signal.SIGXFSZ or (returncode != 0 and "File too large" in last_error_line(stderr)):
        hit.append("file_size")
    return tuple(hit)
