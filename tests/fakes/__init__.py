"""Fake witness modules and plugins the kernel and plugin tests run against."""
