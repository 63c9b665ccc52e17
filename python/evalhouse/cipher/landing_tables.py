"""Landing tables of this benchmark: the benchmark's data (part 1) and its evaluation (part 2).

Each part declares its tables in its own light module, imported here so `dbt build` sees them all.
"""
import importlib
import importlib.util

for _part in ("tables_data", "tables_eval"):
    if importlib.util.find_spec(f"{__package__}.{_part}") is not None:
        importlib.import_module(f"{__package__}.{_part}")
