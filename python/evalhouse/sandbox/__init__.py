"""Run model-written Python in an isolated, resource-limited subprocess.

    from evalhouse.sandbox import run_python, SandboxLimits
    res = run_python(code, files={"data.csv": path}, limits=SandboxLimits(wall_s=10))
    res.status   # ok | error | timeout | killed | denied
    res.reason   # one sentence
    res.mechanism  # the isolation in force (see isolation())

The code runs as a script with cwd /scratch holding copies of `files` only. It never runs in
the harness process and never runs unisolated: if bubblewrap cannot build the namespaces,
the result is status "denied". See README.md in this package for the mechanism.
"""
from .mechanism import Isolation, isolation
from .limits import SandboxLimits, SandboxResult
from .runner import run_python

__all__ = ["run_python", "SandboxResult", "SandboxLimits", "isolation", "Isolation"]
