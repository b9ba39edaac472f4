"""Figure and table rendering helpers."""
