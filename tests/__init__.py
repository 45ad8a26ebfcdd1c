"""Tests of the kernel, plugins and planner."""
