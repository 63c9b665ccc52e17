"""Builds a benchmark plug-in from conventionally named modules, imported only when used.

Phases: ``<pkg>.generate:generate``, ``<pkg>.evaluate:run``, ``<pkg>.evaluate:judge`` and
``<pkg>.report_sections:sections``. A phase whose module is absent is reported and skipped.
"""
from __future__ import annotations

import importlib
import importlib.util

import click

from .benchmarks import SimpleBenchmark


def _lazy(package: str, module: str, attr: str):
    target = f"{package}.{module}"

    def call(*args):
        if importlib.util.find_spec(target) is None:
            click.echo(f"  ({target} is not implemented yet; skipped)")
            return [] if attr == "sections" else None
        return getattr(importlib.import_module(target), attr)(*args)

    return call


def conventional_plugin(name: str, title: str) -> SimpleBenchmark:
    package = f"evalhouse.{name}"
    return SimpleBenchmark(
        name=name,
        title=title,
        generate_fn=_lazy(package, "generate", "generate"),
        run_fn=_lazy(package, "evaluate", "run"),
        judge_fn=_lazy(package, "evaluate", "judge"),
        sections_fn=_lazy(package, "report_sections", "sections"),
    )

