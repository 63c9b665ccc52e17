"""Extra CLI subcommands of CIPHER: `evalhouse cipher-import` and `evalhouse cipher-extract`."""
from __future__ import annotations

import click


@click.command("cipher-import")
@click.argument("kind", type=click.Choice(["cfpb", "mimic", "mtsamples", "fir"]))
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--admissions", type=click.Path(exists=True, dir_okay=False), help="MIMIC-IV hosp/admissions.csv to join.")
def cipher_import(kind, path, admissions):
    """Import real records (CFPB export, MIMIC-IV discharge.csv, MTSamples, FIR JSON/CSV)."""
    from .importers import run_import

    result = run_import(kind, path, admissions)
    click.echo(f"{path}: {len(result.records)} records imported ({result.source_format}), {len(result.rejects)} rejected")
    for r in result.rejects[:20]:
        click.echo(f"  row {r['source_row']}, field {r['field']}: {r['reason']}")


@click.command("cipher-extract")
@click.option("--builder-model", required=True, help="provider/name of the extraction model (role builder).")
@click.option("--base-url", default=None)
@click.option("--api-key-env", default=None)
@click.option("--concurrency", default=8, show_default=True)
@click.option("--limit", type=int, default=None)
@click.option("--domain", "domains", multiple=True, type=click.Choice(["fir", "cfpb", "mimic"]))
def cipher_extract(builder_model, base_url, api_key_env, concurrency, limit, domains):
    """Extract the annotation facts of imported records with an LLM (stored with provenance)."""
    from ..benchmarks import JobOptions
    from .extraction import extract

    opts = JobOptions(builder_model=builder_model, base_url=base_url, api_key_env=api_key_env,
                      concurrency=concurrency, limit=limit)
    summary = extract(opts, tuple(domains) or ("fir", "cfpb", "mimic"))
    click.echo(f"extraction: {summary['extracted_now']} records now, {summary['ok']} ok, {summary['records']} imported")


COMMANDS = [cipher_import, cipher_extract]

try:  # part 2's commands (evaluation), when present
    from .eval_commands import COMMANDS as _EVAL_COMMANDS
except ImportError:  # pragma: no cover - part 2 not installed
    _EVAL_COMMANDS = []
COMMANDS += list(_EVAL_COMMANDS)
