"""The benchmark plug-in registry.

Each benchmark lives in ``evalhouse.<name>`` and exposes ``PLUGIN`` (a ``Benchmark``) from
``evalhouse.<name>.plugin``, and declares its landing tables in the light module
``evalhouse.<name>.landing_tables`` (imported for ``dbt build`` without heavy dependencies).
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import Callable, Protocol

from .errors import UserError

BENCHMARK_NAMES = ("cipher", "trustda", "tuplebench")


@dataclass(frozen=True)
class JobOptions:
    """What a CLI invocation asks of a benchmark job."""

    scale: str = "paper"  # paper | ci (small, for tests)
    seed: int = 42
    model: str | None = None  # provider/name of the system under test (role subject)
    judge_model: str | None = None  # provider/name of the judge (role judge)
    builder_model: str | None = None  # provider/name for generation/extraction (role builder)
    base_url: str | None = None
    api_key_env: str | None = None
    concurrency: int = 8
    limit: int | None = None  # evaluate at most this many items (smoke runs)
    methods: tuple[str, ...] = ()  # restrict to these methods/systems; empty = all
    run_tag: str = ""  # change to start a fresh run instead of resuming
    extra: dict = field(default_factory=dict)


class Benchmark(Protocol):
    name: str
    title: str

    def generate(self, opts: JobOptions) -> None: ...
    def run(self, opts: JobOptions) -> None: ...
    def judge(self, opts: JobOptions) -> None: ...
    def report_sections(self, con) -> list: ...


@dataclass
class SimpleBenchmark:
    """A Benchmark built from functions; a missing phase is a no-op."""

    name: str
    title: str
    generate_fn: Callable[[JobOptions], None] | None = None
    run_fn: Callable[[JobOptions], None] | None = None
    judge_fn: Callable[[JobOptions], None] | None = None
    sections_fn: Callable[..., list] | None = None

    def generate(self, opts: JobOptions) -> None:
        if self.generate_fn:
            self.generate_fn(opts)

    def run(self, opts: JobOptions) -> None:
        if self.run_fn:
            self.run_fn(opts)

    def judge(self, opts: JobOptions) -> None:
        if self.judge_fn:
            self.judge_fn(opts)

    def report_sections(self, con) -> list:
        return self.sections_fn(con) if self.sections_fn else []


def _module_exists(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def available() -> list[str]:
    """Benchmarks whose plug-in is present in this checkout."""
    return [b for b in BENCHMARK_NAMES if _module_exists(f"evalhouse.{b}") and _module_exists(f"evalhouse.{b}.plugin")]


def get(name: str) -> Benchmark:
    if name not in BENCHMARK_NAMES:
        raise UserError(f"unknown benchmark '{name}' (choose from: {', '.join(BENCHMARK_NAMES)})")
    if name not in available():
        raise UserError(f"benchmark '{name}' is not implemented in this checkout yet")
    return importlib.import_module(f"evalhouse.{name}.plugin").PLUGIN


def import_landing_declarations() -> None:
    for name in BENCHMARK_NAMES:
        module = f"evalhouse.{name}.landing_tables"
        if _module_exists(f"evalhouse.{name}") and _module_exists(module):
            importlib.import_module(module)
