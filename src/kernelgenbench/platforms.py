"""Platform profiles: what each backend can run, judge and time (DESIGN.md "Platforms").

A profile names the device string, the variable that pins visible devices, the dispatch key ATen
wrappers are registered under, the dtypes the platform cannot judge, a tolerance scale, and whether
timing and a kernel profiler are available. Detection is automatic; ``--platform`` overrides it.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Platform:
    """One backend.

    Attributes:
        name: profile id (``cuda``, ``rocm``, ``interpreter``, ``musa``, ``ascend``, ``dcu``,
            ``iluvatar``, ``metax``).
        device: the torch device type tensors live on (``"cuda"``, ``"cpu"``, ``"musa"``, ``"npu"``).
        visible_devices_var: the environment variable that pins a job to one device.
        dispatch_key: the key ATen wrappers are registered under (``"CUDA"``, ``"PrivateUse1"``);
            ``None`` where wrappers are called directly (the interpreter).
        interpreter: Triton runs through ``TRITON_INTERPRET=1`` on the CPU.
        timing: speedups are measured here (False on the interpreter: times are not reported).
        profiler: a device kernel profiler is available for the L3 kernel-list check.
        unsupported_dtypes: dtypes whose results this platform cannot judge, with the reason.
            Cases computing in them are reported ``unsupported``, never as pass or failure.
        tolerance_scale: multiplies rtol and atol (1.0 everywhere we have measured).
        env: environment variables every sandbox child gets.
    """

    name: str
    device: str
    visible_devices_var: str | None
    dispatch_key: str | None
    interpreter: bool = False
    timing: bool = True
    profiler: bool = False
    unsupported_dtypes: dict[str, str] = field(default_factory=dict)
    tolerance_scale: float = 1.0
    env: dict[str, str] = field(default_factory=dict)

    def unsupported_reason(self, dtypes: set[Any]) -> str | None:
        """The reason a case computing in ``dtypes`` cannot be judged here, or None."""
        for dt in dtypes:
            key = str(dt).replace("torch.", "")
            if key in self.unsupported_dtypes:
                return f"{key}: {self.unsupported_dtypes[key]}"
        return None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


_BF16_INTERP = ("the Triton 3.6 CPU interpreter computes bf16 arithmetic wrongly (bf16 x bf16 and "
                "bf16 + bf16 give garbage; fp32 arithmetic then a cast is right), so a correct kernel "
                "that computes in bf16 (e.g. tl.dot on bf16 tiles) cannot be judged here")

_FP8_INTERP = ("the Triton CPU interpreter's fp8 conversions (round to nearest even, saturation, NaN) have not "
               "been validated against the hardware's, so a case that converts to or from fp8 is judged on GPUs only")

PROFILES: dict[str, Platform] = {
    "cuda": Platform("cuda", "cuda", "CUDA_VISIBLE_DEVICES", "CUDA", profiler=True),
    "rocm": Platform("rocm", "cuda", "HIP_VISIBLE_DEVICES", "CUDA", profiler=True),
    "interpreter": Platform(
        "interpreter", "cpu", None, None, interpreter=True, timing=False,
        unsupported_dtypes={"bfloat16": _BF16_INTERP, "float8_e4m3fn": _FP8_INTERP, "float8_e5m2": _FP8_INTERP},
        env={"TRITON_INTERPRET": "1"}),
    # Vendor stacks of the paper: device strings, pinning variables and dispatch keys. Not yet run
    # here; their dtype limits and tolerance scales are to be measured on the hardware.
    "musa": Platform("musa", "musa", "MUSA_VISIBLE_DEVICES", "PrivateUse1"),
    "ascend": Platform("ascend", "npu", "ASCEND_RT_VISIBLE_DEVICES", "PrivateUse1"),
    "dcu": Platform("dcu", "cuda", "HIP_VISIBLE_DEVICES", "CUDA"),
    "iluvatar": Platform("iluvatar", "cuda", "CUDA_VISIBLE_DEVICES", "CUDA"),
    "metax": Platform("metax", "cuda", "CUDA_VISIBLE_DEVICES", "CUDA"),
}


def detect(override: str | None = None) -> Platform:
    """Pick the platform: ``override`` if given, else ROCm/CUDA when a GPU is visible, else the
    interpreter.

    Raises:
        ValueError: ``override`` names no profile.
    """
    if override:
        if override not in PROFILES:
            raise ValueError(f"unknown platform {override!r}; known: {', '.join(PROFILES)}")
        return PROFILES[override]
    if os.environ.get("TRITON_INTERPRET") == "1":
        return PROFILES["interpreter"]
    import torch

    if torch.cuda.is_available():
        return PROFILES["rocm"] if getattr(torch.version, "hip", None) else PROFILES["cuda"]
    return PROFILES["interpreter"]


def device_count(platform: Platform) -> int:
    """Number of devices of ``platform`` visible to this process (1 for the interpreter)."""
    if platform.interpreter:
        return 1
    import torch

    return torch.cuda.device_count() if platform.device == "cuda" else 1
