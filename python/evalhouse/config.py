"""Where things live. Every path can be overridden by an environment variable."""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Paths:
    root: Path
    db: Path
    landing: Path
    packages: Path
    reports: Path

    @property
    def warehouse_dir(self) -> Path:
        return self.db.parent


def _resolve(value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else (PROJECT_ROOT / path)


def paths() -> Paths:
    """Current paths (read from the environment each call so tests can redirect them)."""
    db = _resolve(os.environ.get("EVALHOUSE_DB", "warehouse/evalhouse.duckdb"))
    landing = _resolve(os.environ.get("EVALHOUSE_LANDING", str(db.parent / "landing")))
    packages = _resolve(os.environ.get("EVALHOUSE_PACKAGES", str(db.parent / "packages")))
    reports = _resolve(os.environ.get("EVALHOUSE_REPORTS", "reports"))
    return Paths(PROJECT_ROOT, db, landing, packages, reports)


def export_env() -> Paths:
    """Pin absolute paths into the environment so dbt (profiles.yml, sources) sees the same ones."""
    p = paths()
    os.environ["EVALHOUSE_DB"] = str(p.db)
    os.environ["EVALHOUSE_LANDING"] = str(p.landing)
    os.environ["EVALHOUSE_PACKAGES"] = str(p.packages)
    return p


@lru_cache(maxsize=1)
def code_version() -> str:
    """git sha of the checkout (with '-dirty' when the tree has changes), or 'unknown'."""
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=PROJECT_ROOT,
                             capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=5).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
