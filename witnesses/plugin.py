"""Registers this project's witness batches with the claims framework."""
