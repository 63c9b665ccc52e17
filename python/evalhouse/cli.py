"""The `evalhouse` command line. User errors print one sentence and exit 2, no traceback."""
from __future__ import annotations

import functools
import json
import sys

import click

from . import benchmarks
from .benchmarks import BENCHMARK_NAMES, JobOptions
from .errors import UserError


def _user_errors(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted; completed batches are kept and the run resumes when restarted", err=True)
            sys.exit(130)
    return wrapper


def _benchmark_option(fn):
    return click.option("--benchmark", "-b", "benchmark_names", multiple=True,
                        help=f"One of {', '.join(BENCHMARK_NAMES)} (repeatable; default: all available).")(fn)


def _job_options(fn):
    options = [
        click.option("--scale", type=click.Choice(["paper", "ci"]), default="paper", show_default=True,
                     help="Data scale: the papers' sizes, or a small CI scale."),
        click.option("--seed", type=int, default=42, show_default=True, help="Seed for every generator and sampler."),
        click.option("--model", default=None, help="Subject model as provider/name (e.g. openai/gpt-4o-mini, ollama/qwen2.5)."),
        click.option("--judge-model", default=None, help="Judge model as provider/name (default: the built-in rule judges)."),
        click.option("--builder-model", default=None, help="Builder model for LLM generation/extraction steps."),
        click.option("--base-url", default=None, help="OpenAI-compatible endpoint URL (vLLM, Ollama, a proxy)."),
        click.option("--api-key-env", default=None, help="Environment variable that holds the API key."),
        click.option("--concurrency", type=int, default=8, show_default=True, help="Requests in flight per model."),
        click.option("--limit", type=int, default=None, help="Evaluate at most this many items (a smoke run)."),
        click.option("--method", "methods", multiple=True, help="Restrict to these methods/systems (repeatable)."),
        click.option("--run-tag", default="", help="Start a fresh run instead of resuming the previous identical one."),
        click.option("--extra", "extra", multiple=True, metavar="KEY=VALUE",
                     help="Benchmark-specific option (repeatable), e.g. settings=full_table for CIPHER."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _opts(**kw) -> JobOptions:
    kw["methods"] = tuple(kw.get("methods") or ())
    kw["extra"] = _parse_extra(kw.get("extra") or ())
    return JobOptions(**kw)


def _parse_extra(pairs: tuple[str, ...]) -> dict:
    extra = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--extra expects KEY=VALUE, got '{pair}'")
        extra[key.strip()] = _json_or_text(value.strip())
    return extra


def _json_or_text(value: str):
    """`false`, `3`, `["a","b"]` parse as JSON; anything else stays text."""
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def _selected(names: tuple[str, ...]) -> list[str]:
    if not names:
        return benchmarks.available()
    for name in names:
        benchmarks.get(name)  # raises a UserError for unknown or absent benchmarks
    return list(names)


def _check_model_settings(opts: JobOptions) -> None:
    from .llm import resolve_model  # validates provider, key and endpoint up front

    for role, model in (("subject", opts.model), ("judge", opts.judge_model), ("builder", opts.builder_model)):
        if model:
            resolve_model(model, base_url=opts.base_url, api_key_env=opts.api_key_env, role=role, check_endpoint=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """evalhouse: CIPHER, TrustDABench and TUPLE-Bench as one DuckDB + dbt warehouse."""


@cli.command()
@_benchmark_option
@_job_options
@_user_errors
def generate(benchmark_names, **kw):
    """Generate or import each benchmark's data into the landing zone."""
    opts = _opts(**kw)
    for name in _selected(benchmark_names):
        click.echo(f"[{name}] generate")
        benchmarks.get(name).generate(opts)


@cli.command()
@click.option("--select", default=None, help="dbt node selection (default: everything).")
@click.option("--target", default=None, help="dbt target (dev or ci).")
@_user_errors
def build(select, target):
    """Run `dbt build` (seeds, models, tests) on the warehouse."""
    from .dbt_runner import dbt_build

    summary = dbt_build(select=select, target=target)
    click.echo(f"dbt build: {summary['nodes']} nodes passed")


@cli.command()
@_benchmark_option
@_job_options
@_user_errors
def run(benchmark_names, **kw):
    """Run systems: the built-in baselines, or with --model the LLM methods."""
    opts = _opts(**kw)
    _check_model_settings(opts)
    for name in _selected(benchmark_names):
        click.echo(f"[{name}] run" + (f" --model {opts.model}" if opts.model else " (built-in systems)"))
        benchmarks.get(name).run(opts)


@cli.command()
@_benchmark_option
@_job_options
@_user_errors
def judge(benchmark_names, **kw):
    """Judge system outputs (rule judges by default; --judge-model adds an LLM judge)."""
    opts = _opts(**kw)
    _check_model_settings(opts)
    for name in _selected(benchmark_names):
        click.echo(f"[{name}] judge")
        benchmarks.get(name).judge(opts)


@cli.command()
@click.option("--out", default=None, help="Output HTML path (default: reports/index.html).")
@_user_errors
def report(out):
    """Write the self-contained HTML report from the marts."""
    from .report import write_report

    path = write_report(out)
    click.echo(f"report written to {path}")


@cli.command("run-all")
@_benchmark_option
@_job_options
@_user_errors
def run_all(benchmark_names, **kw):
    """generate -> build -> run -> build -> judge -> build -> report, for every benchmark."""
    from .dbt_runner import dbt_build
    from .report import write_report

    opts = _opts(**kw)
    _check_model_settings(opts)
    names = _selected(benchmark_names)
    target = "ci" if opts.scale == "ci" else None  # the ci target: same models, CI-scale data
    for phase in ("generate", "run", "judge"):
        for name in names:
            click.echo(f"[{name}] {phase}")
            getattr(benchmarks.get(name), phase)(opts)
        click.echo(f"dbt build after {phase}")
        dbt_build(target=target, scale=opts.scale)
    click.echo(f"report written to {write_report()}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@_user_errors
def status(as_json):
    """Runs, their counts, and whether the marts are stale relative to the landing zone."""
    from .status import collect_status, render_status

    info = collect_status()
    click.echo(json.dumps(info, indent=2, default=str) if as_json else render_status(info))


def _register_benchmark_commands() -> None:
    """Benchmarks may add their own subcommands (e.g. `evalhouse gate`) via a `commands` list."""
    import importlib

    for name in benchmarks.available():
        try:
            module = importlib.import_module(f"evalhouse.{name}.commands")
        except ModuleNotFoundError:
            continue
        for command in getattr(module, "COMMANDS", []):
            cli.add_command(command)


def main() -> None:  # noqa: D103
    _register_benchmark_commands()
    cli(prog_name="evalhouse")


if __name__ == "__main__":
    main()
