"""witnesses package."""
