"""streamer: deterministic, streaming publication of evidence-grounded session bundles."""

__version__ = "0.1.0"
