"""Item lists and benchmark builders (pure Python: no torch import here)."""
