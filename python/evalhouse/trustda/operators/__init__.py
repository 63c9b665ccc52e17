"""The 19 TrustDABench operators (importing this package registers them all)."""
from . import excel, reliability, robustness  # noqa: F401  (registration side effects)
from .base import OPERATORS, Ctx, NotApplicable, OperatorSpec

ORDERED = sorted(OPERATORS.values(), key=lambda s: (s.track != "reliability", s.priority))

__all__ = ["OPERATORS", "ORDERED", "Ctx", "NotApplicable", "OperatorSpec"]
