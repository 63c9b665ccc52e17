"""TrustDABench: refusal under broken evidence and robustness under re-represented tables."""
