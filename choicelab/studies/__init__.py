"""Per-study table and figure functions (pure Python: pandas, matplotlib, networkx)."""
