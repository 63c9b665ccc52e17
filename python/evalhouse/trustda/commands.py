"""TrustDABench's own CLI subcommands: `evalhouse gate PACKAGE --question TEXT`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..errors import UserError


@click.command("gate")
@click.argument("package", type=click.Path(path_type=Path))
@click.option("--question", "-q", required=True, help="The question the package must support.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def gate_command(package: Path, question: str, as_json: bool):
    """Check a table PACKAGE (folder or file) against a question before any analysis.

    Prints `pass`, or the unmet evidence requirements with evidence (file, sheet, columns, rows).
    Exit status: 0 pass, 1 refuse (blocking findings), 2 usage error.
    """
    from .gate import check

    try:
        if not package.exists():
            raise UserError(f"no package at {package}")
        if package.is_dir() and not any(p.is_file() for p in package.iterdir()):
            raise UserError(f"package {package} holds no files")
        result = check(package, question)
    except UserError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(_render(result))
    sys.exit(0 if result.passed else 1)


def _render(result) -> str:
    lines = [("pass" if result.passed else "refuse") + f"  ({len(result.files)} file(s), {result.elapsed_ms:.0f} ms)"]
    for f in result.findings:
        where = "/".join(x for x in (f.file, f.sheet) if x) or "package"
        lines.append(f"  [{'blocking' if f.blocking else 'advisory'}] {f.kind}: {f.requirement}")
        detail = [f"at {where}"]
        if f.columns:
            detail.append("columns " + ", ".join(f.columns[:8]))
        if f.rows:
            detail.append("rows " + ", ".join(map(str, f.rows[:10])) + (" ..." if len(f.rows) > 10 else ""))
        lines.append("      " + "; ".join(detail))
    return "\n".join(lines)


COMMANDS = [gate_command]
