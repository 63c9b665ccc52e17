"""Host-side launcher: the last trusted step before bubblewrap. Standard library only.

Run as `python -I -S launcher.py SPEC_JSON` in a fresh session. As root it
1. enters a private mount namespace and bind-mounts the Python runtime onto staging
   directories that the unprivileged uid can reach (e.g. a pyenv under /root, mode 0700),
2. moves itself into the run's cgroups,
3. drops to the unprivileged uid/gid with no supplementary groups,
4. execs bwrap, which builds the sandbox.
Without root only steps 2 (when permitted) and 4 apply. Any failure exits 126 with a
one-line message on stderr, so the caller refuses the run instead of running unisolated.
"""
import ctypes
import json
import os
import sys

CLONE_NEWNS = 0x00020000
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000


def fail(message):
    sys.stderr.write(f"evalhouse sandbox launcher: {message}\n")
    sys.stderr.flush()
    os._exit(126)


def libc_call(libc, name, *args):
    if getattr(libc, name)(*args) != 0:
        fail(f"{name}{args!r} failed: {os.strerror(ctypes.get_errno())}")


def stage_mounts(mounts):
    libc = ctypes.CDLL(None, use_errno=True)
    libc_call(libc, "unshare", CLONE_NEWNS)
    # Private propagation: our bind mounts never appear in the host's mount namespace.
    libc_call(libc, "mount", b"none", b"/", None, MS_REC | MS_PRIVATE, None)
    for source, target in mounts:
        libc_call(libc, "mount", source.encode(), target.encode(), None, MS_BIND | MS_REC, None)


def join_cgroups(procs_files):
    for path in procs_files:
        try:
            with open(path, "w") as handle:
                handle.write(str(os.getpid()))
        except OSError as exc:
            fail(f"cannot join cgroup {path}: {exc.strerror}")


def drop_privileges(uid, gid):
    try:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        fail(f"cannot drop to uid {uid}: {exc.strerror}")
    if os.getuid() != uid or os.geteuid() != uid or os.getgroups():
        fail(f"still privileged after dropping to uid {uid}")


def main():
    spec = json.loads(sys.argv[1])
    if spec["stage_mounts"]:
        stage_mounts(spec["stage_mounts"])
    join_cgroups(spec["cgroup_procs"])
    if spec["uid"] is not None:
        drop_privileges(spec["uid"], spec["gid"])
    try:
        os.execv(spec["argv"][0], spec["argv"])
    except OSError as exc:
        fail(f"cannot execute {spec['argv'][0]}: {exc.strerror}")


if __name__ == "__main__":
    main()
