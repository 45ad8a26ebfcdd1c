"""Serving launch profiles and their content key.

Utilization is carried in basis points (8000 = 0.80) so that no float decides a fit.
The Engram request enters the content key only when it is set, so a profile that
never carried one (every GLM profile) keeps the key it always had.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import Field

from planner.values import Frozen

KvCacheDtype = Literal["auto", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_ds_mla", "bfloat16"]


def utilization_text(basis_points: int) -> str:
    """Basis points as the decimal vLLM reads (8000 → ``0.8``), exactly: a fraction that is
    not zero keeps a digit that is not 0, so stripping the zeros leaves no bare point."""
    whole, frac = divmod(basis_points, 10000)
    return f"{whole}.{frac:04d}".rstrip("0") if frac else f"{whole}.0"


class VllmEngramConfigRequest(Frozen):
    """vLLM's EngramConfig, as a request rendered in upstream's dotted form."""

    cpu_offload: bool
    dp_shared_memory: bool

    def flags(self) -> tuple[str, ...]:
        return (
            "--engram-config.cpu_offload",
            _bool_word(self.cpu_offload),
            "--engram-config.dp_shared_memory",
            _bool_word(self.dp_shared_memory),
        )


def _bool_word(value: bool) -> str:
    return "true" if value else "false"


class ServingLaunchProfile(Frozen):
    """What the engine is told: memory share, lengths, batch limits, cache choices."""

    gpu_memory_utilization_bp: int = Field(gt=0, le=10000)
    max_model_len: int = Field(gt=0)
    max_num_seqs: int = Field(gt=0)
    max_num_batched_tokens: int = Field(gt=0)
    kv_cache_dtype: KvCacheDtype
    prefix_caching: bool
    engram: VllmEngramConfigRequest | None = None

    @property
    def utilization_text(self) -> str:
        return utilization_text(self.gpu_memory_utilization_bp)

    def content_key(self) -> str:
        """A digest of the profile's content; an unset Engram request is left out."""
        body: dict[str, Any] = self.model_dump(exclude={"engram"})
        if self.engram is not None:
            body["engram"] = self.engram.model_dump()
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()

    def flags(self) -> tuple[str, ...]:
        flags = (
            "--gpu-memory-utilization",
            self.utilization_text,
            "--max-model-len",
            str(self.max_model_len),
            "--max-num-seqs",
            str(self.max_num_seqs),
            "--max-num-batched-tokens",
            str(self.max_num_batched_tokens),
            "--kv-cache-dtype",
            self.kv_cache_dtype,
            "--enable-prefix-caching" if self.prefix_caching else "--no-enable-prefix-caching",
        )
        return flags + (self.engram.flags() if self.engram is not None else ())
