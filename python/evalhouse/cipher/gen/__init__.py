"""Seeded record generators, one module per domain (a latent annotation view rendered as text)."""
