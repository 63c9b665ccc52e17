"""Per-run working directory on the host: scratch copies in, written files out.

Layout of a run directory (removed afterwards):
  scratch/  the code's cwd (/scratch inside); copies of the allowed inputs; owned by the
            sandbox uid; the only host directory the code can write
  code/     read-only inside (/sandbox): boot.py, main.py, passwd, group
  stage/N   mount points for the runtime when bwrap must reach it from an unprivileged uid
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path, PurePosixPath

from ..errors import BadInput

MAX_OUTPUT_ENTRIES = 10_000
_STALE_RUN_DIR_S = 6 * 3600  # left behind only when a harness is killed mid-run
_BOOT = Path(__file__).with_name("boot.py")


def base_dir() -> Path:
    root = os.environ.get("EVALHOUSE_SANDBOX_DIR") or tempfile.gettempdir()
    base = Path(root) / f"evalhouse-sandbox-{os.getuid()}"
    base.mkdir(mode=0o711, exist_ok=True)
    info = base.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise BadInput(f"sandbox base directory {base} is not a directory owned by uid {os.getuid()}")
    os.chmod(base, 0o711)
    return base


def remove_stale_run_dirs(base: Path) -> None:
    cutoff = time.time() - _STALE_RUN_DIR_S
    for path in base.glob("run-*"):
        try:
            if path.lstat().st_mtime < cutoff:
                shutil.rmtree(path, ignore_errors=True)  # never follows the tree's symlinks
        except OSError:
            pass


class RunDir:
    def __init__(self, owner_uid: int | None, owner_gid: int | None):
        base = base_dir()
        remove_stale_run_dirs(base)
        self.path = Path(tempfile.mkdtemp(prefix="run-", dir=base))
        os.chmod(self.path, 0o711)  # the unprivileged bwrap must traverse it, not list it
        self.scratch = self.path / "scratch"
        self.code = self.path / "code"
        self.stage = self.path / "stage"
        self._uid, self._gid = owner_uid, owner_gid
        self._input_digests: dict[str, str] = {}
        self.scratch.mkdir(mode=0o700)
        self.code.mkdir(mode=0o755)
        self.stage.mkdir(mode=0o755)
        self._chown(self.scratch)

    def __enter__(self) -> "RunDir":
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def _chown(self, path: Path) -> None:
        if self._uid is not None:
            os.chown(path, self._uid, self._gid, follow_symlinks=False)

    def write_code(self, code: str, uid: int) -> None:
        (self.code / "main.py").write_text(code, encoding="utf-8")
        shutil.copyfile(_BOOT, self.code / "boot.py")
        (self.code / "passwd").write_text(f"sandbox:x:{uid}:{uid}:sandbox:/tmp:/usr/sbin/nologin\n")
        (self.code / "group").write_text(f"sandbox:x:{uid}:\n")
        for path in self.code.iterdir():
            os.chmod(path, 0o644)

    def stage_dir(self, index: int) -> Path:
        path = self.stage / str(index)
        path.mkdir(mode=0o755)
        return path

    def copy_inputs(self, files: dict[str, Path] | None) -> None:
        """Copy each allowed input to scratch/<name>; the originals are never exposed."""
        for name, source in (files or {}).items():
            target = self.scratch / _safe_relative(name)
            source = Path(source)
            if not source.exists():
                raise BadInput(f"sandbox input {name!r}: file {source} does not exist")
            self._make_parents(target)
            if source.is_dir():
                shutil.copytree(source, target, symlinks=False)
                for path in [target, *target.rglob("*")]:
                    self._chown(path)
            else:
                shutil.copyfile(source, target)
                self._chown(target)
            for path in [target, *(target.rglob("*") if target.is_dir() else [])]:
                if path.is_file():
                    self._input_digests[path.relative_to(self.scratch).as_posix()] = _digest(path.read_bytes())

    def _make_parents(self, target: Path) -> None:
        missing = []
        parent = target.parent
        while parent != self.scratch and not parent.exists():
            missing.append(parent)
            parent = parent.parent
        for directory in reversed(missing):
            directory.mkdir(mode=0o755)
            self._chown(directory)

    def collect_outputs(self, budget: int) -> tuple[dict[str, bytes], tuple[str, ...]]:
        """Regular files the code created or changed, within a total byte budget.

        The tree belongs to the sandbox uid, so never follow its symlinks (O_NOFOLLOW) and
        never open anything but a regular file (a FIFO would block the harness).
        """
        outputs: dict[str, bytes] = {}
        omitted: list[str] = []
        seen = 0
        for root, dirs, names in os.walk(self.scratch, followlinks=False):
            dirs.sort()
            for name in sorted(names):
                seen += 1
                if seen > MAX_OUTPUT_ENTRIES:
                    return outputs, (*omitted, "...")
                path = Path(root) / name
                rel = path.relative_to(self.scratch).as_posix()
                status, data = _read_changed(path, self._input_digests.get(rel), budget)
                if status == "changed":
                    outputs[rel] = data
                    budget -= len(data)
                elif status == "too_big":
                    omitted.append(rel)
        return outputs, tuple(omitted)


def _safe_relative(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if not name or rel.is_absolute() or ".." in rel.parts or rel == PurePosixPath("."):
        raise BadInput(f"sandbox input name {name!r} must be a relative path without '..'")
    return rel


def _read_changed(path: Path, input_digest: str | None, budget: int) -> tuple[str, bytes]:
    """("skip" | "too_big" | "changed", data) for one file of the scratch tree."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return "skip", b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "skip", b""
        data = _read_all(fd)
    finally:
        os.close(fd)
    if input_digest is not None and _digest(data) == input_digest:
        return "skip", b""
    return ("too_big", b"") if len(data) > budget else ("changed", data)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
