"""evalhouse: an evaluation warehouse for CIPHER, TrustDABench and TUPLE-Bench."""

__version__ = "0.1.0"
