"""Limits a sandboxed run gets and the result it reports."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

STATUSES = ("ok", "error", "timeout", "killed", "denied")


@dataclass(frozen=True)
class SandboxLimits:
    wall_s: float = 30.0          # wall-clock time, then the whole sandbox is SIGKILLed
    cpu_s: int = 30               # RLIMIT_CPU per process (SIGXCPU, then SIGKILL one second later)
    memory_mb: int = 1024         # RLIMIT_AS per process and memory cgroup limit for the sandbox
    output_bytes: int = 64_000    # kept per stream (stdout, stderr); the rest is read and dropped
    max_procs: int = 64           # processes + threads (RLIMIT_NPROC in the sandbox's user ns, pids cgroup)
    file_size_mb: int = 64        # RLIMIT_FSIZE: largest file the code may write
    tmp_mb: int = 64              # size of the private tmpfs mounted on /tmp
    outputs_bytes: int = 1_000_000  # total size of written files returned in SandboxResult.outputs
    cpu_cores: float = 1.0        # cpu cgroup quota (cores); the machine is shared

    def __post_init__(self) -> None:
        for name in ("wall_s", "cpu_s", "memory_mb", "output_bytes", "max_procs",
                     "file_size_mb", "tmp_mb", "cpu_cores"):
            if getattr(self, name) <= 0:
                raise ValueError(f"SandboxLimits.{name} must be positive, got {getattr(self, name)!r}")
        if self.max_procs < 4:
            raise ValueError("SandboxLimits.max_procs must be at least 4 (the sandbox's own "
                             "supervisor processes count against it)")

    def with_overrides(self, **overrides) -> "SandboxLimits":
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


@dataclass(frozen=True)
class SandboxResult:
    status: str                   # ok | error | timeout | killed | denied
    returncode: int | None        # None when the code never ran (denied)
    stdout: str
    stderr: str
    duration_s: float
    reason: str                   # one sentence a person (or a model) can act on
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    outputs: dict[str, bytes] = field(default_factory=dict)  # files the code created or changed
    outputs_omitted: tuple[str, ...] = ()                    # written but over the outputs budget
    limits_hit: tuple[str, ...] = ()                         # e.g. ("wall", "memory", "procs")
    mechanism: str = ""           # the isolation that was in force, see sandbox.isolation()
    cpu_time_s: float | None = None      # from the cpuacct cgroup when available
    peak_memory_mb: float | None = None  # from the memory cgroup when available

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def truncated(self) -> bool:
        return self.stdout_truncated or self.stderr_truncated
