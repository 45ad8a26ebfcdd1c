"""A plugin that fails to import."""

raise RuntimeError("broken on purpose")
