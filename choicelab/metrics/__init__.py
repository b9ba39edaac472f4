"""Metrics (pure Python / numpy / scipy: no torch import here)."""
