"""Which isolation this machine gives the sandbox, and the bwrap command that builds it.

Mechanism (strongest first; there is no unisolated fallback):
- bubblewrap (`bwrap`) with new user, pid, network, ipc, uts, cgroup and mount namespaces,
  nested user namespaces disabled, an empty tmpfs root with read-only binds of /usr and the
  Python runtime (venv + base interpreter), a private size-limited tmpfs /tmp, and the
  run's scratch directory as the only writable host path;
- as root, bwrap itself runs as an unprivileged uid (`nobody`), so even outside the
  namespaces the code holds no privilege and cannot read root-only files;
- rlimits AS/CPU/NPROC/FSIZE/CORE set inside the sandbox before the code starts;
- a per-run cgroup v1 (pids, memory, cpu quota) when the hierarchies are writable.
If bwrap is missing or cannot create the namespaces, runs are refused with status "denied".
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import cgroups
from .limits import SandboxLimits

NAMESPACES = "user, pid, network, ipc, uts, cgroup and mount namespaces"
INSIDE_SCRATCH = "/scratch"
INSIDE_CODE_DIR = "/sandbox"
PYTHON_FLAGS = ("-s", "-B")  # no user site-packages, no .pyc writes


@dataclass(frozen=True)
class Isolation:
    bwrap: str | None
    bwrap_version: str
    as_root: bool
    uid: int | None       # uid bwrap is started as (None: keep the caller's)
    gid: int | None
    cgroups: bool
    problem: str | None   # set when sandboxed runs must be refused

    def describe(self, cgroups_in_force: bool | None = None) -> str:
        if self.problem:
            return f"none (refusing to run: {self.problem})"
        use_cgroups = self.cgroups if cgroups_in_force is None else cgroups_in_force
        who = f"uid {self.uid} (nobody)" if self.uid is not None else f"the caller's uid {os.getuid()}"
        parts = [
            f"bubblewrap {self.bwrap_version} started as {who}",
            f"new {NAMESPACES}, nested user namespaces disabled",
            "read-only /usr and Python runtime, private tmpfs /tmp, scratch dir the only writable host path",
            "rlimits AS/CPU/NPROC/FSIZE/CORE",
            "cgroup v1 pids/memory/cpu limits" if use_cgroups else "no cgroup (rlimits only)",
        ]
        return "; ".join(parts)


def isolation() -> Isolation:
    """The mechanism in force; EVALHOUSE_SANDBOX_BWRAP names another bwrap binary."""
    return _isolation(os.environ.get("EVALHOUSE_SANDBOX_BWRAP"), cgroups.available())


@lru_cache(maxsize=8)
def _isolation(bwrap_override: str | None, cgroups_available: bool) -> Isolation:
    bwrap = bwrap_override or shutil.which("bwrap") or ("/usr/bin/bwrap" if Path("/usr/bin/bwrap").exists() else None)
    if not bwrap or not os.access(bwrap, os.X_OK):
        return Isolation(None, "", os.geteuid() == 0, None, None, False,
                         f"bubblewrap ({bwrap or 'bwrap'}) is not installed or not executable; "
                         "run scripts/install_system_deps.sh")
    version = _bwrap_version(bwrap)
    as_root = os.geteuid() == 0
    uid = gid = None
    if as_root:
        nobody = _nobody()
        uid, gid = nobody.pw_uid, nobody.pw_gid
    return Isolation(bwrap, version, as_root, uid, gid, cgroups_available, None)


def _bwrap_version(bwrap: str) -> str:
    try:
        out = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.strip().removeprefix("bubblewrap").strip() or "unknown"


def _nobody() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        return pwd.struct_passwd(("nobody", "x", 65534, 65534, "", "/", "/usr/sbin/nologin"))


def runtime_roots() -> list[str]:
    """Directories holding the interpreter and its packages, outside /usr (deduplicated)."""
    candidates = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    candidates.add(os.path.realpath(os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))))
    roots: list[str] = []
    for path in sorted(candidates, key=len):
        if path == "/usr" or path.startswith("/usr/"):
            continue
        if any(path == r or path.startswith(r + "/") for r in roots):
            continue
        roots.append(path)
    return roots


def _top_level_links() -> list[str]:
    """Recreate /bin, /lib, ... as on the host: symlinks into /usr, or read-only binds."""
    args: list[str] = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = f"/{name}"
        if os.path.islink(host):
            args += ["--symlink", os.readlink(host), host]
        elif os.path.isdir(host):
            args += ["--ro-bind", host, host]
    return args


def sandbox_env() -> list[str]:
    venv_bin = os.path.dirname(sys.executable)
    env = {
        "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",  # output written before a kill is not lost in a buffer
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
        # one thread per numeric library: threads count against max_procs and the CPU quota
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "NUMEXPR_MAX_THREADS": "1", "MPLBACKEND": "Agg", "MPLCONFIGDIR": "/tmp",
    }
    args: list[str] = ["--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def bwrap_argv(iso: Isolation, limits: SandboxLimits, *, scratch: Path, code_dir: Path,
               runtime_binds: list[tuple[str, str]], boot_spec: str) -> list[str]:
    """The bwrap command line; runtime_binds are (host source, path inside) pairs."""
    argv = [iso.bwrap, "--unshare-all", "--unshare-user", "--disable-userns",
            "--die-with-parent", "--new-session", "--hostname", "sandbox",
            "--ro-bind", "/usr", "/usr", *_top_level_links(),
            # /tmp before the runtime binds: a venv that lives under /tmp must stay visible
            "--size", str(limits.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp"]
    for source, target in runtime_binds:
        argv += ["--ro-bind", source, target]
    argv += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
             "--ro-bind-try", "/etc/localtime", "/etc/localtime",
             "--ro-bind", str(code_dir / "passwd"), "/etc/passwd",
             "--ro-bind", str(code_dir / "group"), "/etc/group",
             "--ro-bind", str(code_dir), INSIDE_CODE_DIR,
             "--proc", "/proc", "--dev", "/dev",
             "--bind", str(scratch), INSIDE_SCRATCH,
             "--remount-ro", "/",
             "--chdir", INSIDE_SCRATCH, *sandbox_env(),
             "--", sys.executable, "-I", "-S", f"{INSIDE_CODE_DIR}/boot.py", boot_spec]
    return argv
