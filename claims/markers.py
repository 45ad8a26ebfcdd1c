"""The pluggy markers of the ``claims`` project: one for the contract, one for plugins."""

from __future__ import annotations

import pluggy

PROJECT = "claims"

#: Marks a function in :mod:`claims.hookspecs` as part of the contract.
hookspec = pluggy.HookspecMarker(PROJECT)

#: Marks a plugin function as an implementation of a ``claims_*`` hook.
hookimpl = pluggy.HookimplMarker(PROJECT)
