"""TUPLE-Bench: protected-cause leakage through typed decision outputs, utility and WCPQ."""
