"""A rich progress bar on stderr for batches of model calls."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def progress_bar(desc: str, total: int, enabled: bool = True) -> Iterator[Callable[[], None]]:
    """Yields ``advance()``; a no-op when disabled or empty."""
    if not enabled or total == 0:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as progress:
        task = progress.add_task(desc, total=total)
        yield lambda: progress.advance(task)
