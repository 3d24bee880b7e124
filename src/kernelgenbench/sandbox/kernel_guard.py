"""The launch rule at ``kernel[grid]`` (red team rt39b): an instance attribute set on a Triton kernel object over an
entry of its class (``kernel.run = f``) takes the kernel's launches past the harness's hooked run, so the hook never
sees them; ``KernelInterface.__getitem__``, which every ``kernel[grid](...)`` goes through before it calls
``self.run``, refuses such a kernel (:func:`.launch_args.shadowed_entry`)."""
from __future__ import annotations

from typing import Any

from .launch_args import LaunchArgumentError, shadowed_entry
from .state import STATE


def install() -> None:
    """Wrap ``triton.runtime.jit.KernelInterface.__getitem__`` (idempotent)."""
    try:
        from triton.runtime.jit import KernelInterface
    except ImportError:  # pragma: no cover - another Triton
        return
    orig = KernelInterface.__getitem__
    if getattr(orig, "_kgb_hooked", False):
        return

    def getitem(self: Any, grid: Any) -> Any:
        msg = shadowed_entry(self)
        if msg is not None:
            STATE.note_violation(msg)
            raise LaunchArgumentError(msg)
        return orig(self, grid)

    getitem._kgb_hooked = True  # type: ignore[attr-defined]
    KernelInterface.__getitem__ = getitem
