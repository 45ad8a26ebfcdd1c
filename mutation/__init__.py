"""mutation package."""
