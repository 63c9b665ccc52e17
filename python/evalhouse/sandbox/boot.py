"""First program inside the sandbox: verify isolation, set limits, signal readiness, exec the code.

Standard library only; runs as the unprivileged uid after bubblewrap has built the
namespaces and mounts. It checks from the inside that the isolation is really in force
(no privilege, loopback-only network, a fresh pid namespace, a read-only root) and refuses
otherwise, so a broken or substituted bwrap cannot silently run the code unisolated. Only
then does it write "ready" on the status pipe: the harness treats a run without that byte
as denied. Limits set here are inherited by everything the code starts and cannot be
raised again (no privileges inside).
"""
import json
import os
import resource
import sys


def isolation_problem():
    if os.getuid() == 0 or os.geteuid() == 0:
        return "running as root"
    with open("/proc/self/status") as handle:
        caps = dict(line.split(":", 1) for line in handle if line.startswith("Cap"))
    if int(caps["CapEff"].strip(), 16) != 0:
        return "process holds capabilities"
    with open("/proc/net/dev") as handle:
        interfaces = {line.split(":", 1)[0].strip() for line in handle.readlines()[2:]}
    if interfaces - {"lo"}:
        return f"network interfaces visible: {sorted(interfaces - {'lo'})}"
    if os.getpid() > 2:
        return f"not in a fresh pid namespace (pid {os.getpid()})"
    if not os.statvfs("/").f_flag & os.ST_RDONLY:
        return "root filesystem is writable"
    return None


def main():
    spec = json.loads(sys.argv[1])
    problem = isolation_problem()
    if problem:
        sys.stderr.write(f"SandboxSelfCheckError: isolation not in force ({problem})\n")
        sys.stderr.flush()
        os._exit(125)
    for name, (soft, hard) in spec["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    os.write(spec["ready_fd"], b"ready")
    os.close(spec["ready_fd"])
    os.execv(spec["python"], [spec["python"], *spec["python_flags"], spec["script"]])


if __name__ == "__main__":
    main()
