"""`evalhouse status`: what runs exist, their counts, and which landing tables are newer than the marts."""
from __future__ import annotations

from datetime import datetime, timezone

from .config import paths
from .landing import LandingZone, all_tables
from .warehouse import connect, table_exists


def _newest_part(zone: LandingZone, table: str) -> datetime | None:
    parts = [p for p in zone.table_dir(table).glob("*/*.parquet") if p.parent.name != "_schema"]
    if not parts:
        return None
    return datetime.fromtimestamp(max(p.stat().st_mtime for p in parts), tz=timezone.utc)


def collect_status() -> dict:
    p = paths()
    zone = LandingZone(p.landing)
    built_at = datetime.fromtimestamp(p.db.stat().st_mtime, tz=timezone.utc) if p.db.exists() else None
    tables = {}
    on_disk = {d.name for d in zone.root.glob("*") if d.is_dir() and not d.name.startswith("_")}
    for name in sorted(set(all_tables()) | on_disk):
        newest = _newest_part(zone, name)
        tables[name] = {
            "newest_part": newest,
            "stale": bool(newest and (built_at is None or newest > built_at)),
        }
    runs = []
    if p.db.exists():
        with connect(read_only=True) as con:
            if table_exists(con, "runs"):
                runs = con.execute(
                    "select run_id, kind, status, started_at, finished_at, counts from runs order by started_at"
                ).df().to_dict("records")
    return {"warehouse": str(p.db), "built_at": built_at, "landing": str(p.landing),
            "landing_tables": tables, "runs": runs}


def render_status(info: dict) -> str:
    lines = [f"warehouse: {info['warehouse']} (last written {info['built_at'] or 'never'})"]
    stale = [t for t, v in info["landing_tables"].items() if v["stale"]]
    lines.append("stale (landing newer than warehouse; run `evalhouse build`): " + (", ".join(stale) or "none"))
    lines.append(f"runs: {len(info['runs'])}")
    for r in info["runs"]:
        lines.append(f"  {r['run_id']:<48} {r['kind']:<24} {r['status']:<24} {r['counts']}")
    return "\n".join(lines)
