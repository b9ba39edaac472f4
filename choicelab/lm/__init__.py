"""The one scoring engine shared by every study (torch lives here and only here)."""
