"""Pipelines: the steps rules run, joining items, the engine, dumps, metrics and provenance (thin, testable)."""
