"""The allowlist of ``torch.<name>`` callables a submission may call outside kernels: allocation, views, metadata,
device queries, argument checks and read-only flags. A part of :mod:`.policy` (moved out for room; policy
re-exports it), with each entry's source noted where it was added."""
from __future__ import annotations

#: ``torch.<name>`` callables that only allocate, build views or read metadata (DESIGN.md: "Allowed:
#: allocation, views, metadata"). Random state (manual_seed) and torch.library are deliberately absent.
TORCH_ALLOWED: frozenset[str] = frozenset(
    {
        # allocation
        "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like",
        "full", "full_like", "arange",
        # metadata, dtype and device utilities
        "Size", "device", "dtype", "finfo", "iinfo", "promote_types", "result_type", "can_cast",
        "broadcast_shapes", "is_tensor", "is_floating_point", "is_complex", "get_default_dtype",
        "is_grad_enabled", "no_grad", "inference_mode", "is_inference_mode_enabled", "get_device",
        "get_default_device", "numel",
        "view_as_real", "view_as_complex",
        # the function forms of the view methods allowed in TENSOR_METHODS_ALLOWED
        "reshape", "permute", "transpose", "t", "unsqueeze", "squeeze", "flatten", "unflatten",
        "narrow", "select", "as_strided", "unbind", "split", "chunk", "broadcast_to", "broadcast_tensors",
        "atleast_1d", "atleast_2d", "atleast_3d", "movedim",
        "moveaxis", "swapaxes", "swapdims", "tensor_split", "diagonal",
        # device queries
        "cuda.current_device", "cuda.device", "cuda.device_of", "cuda.device_count", "cuda.get_device_properties",
        "cuda.get_device_capability", "cuda.get_device_name", "cuda.is_available",
        "cuda.synchronize", "cuda.current_stream", "cuda.set_device",
        # (fp37) NVTX ranges and marks around launches (profiling-minded wrappers): host annotations for a profiler,
        # they compute nothing and answer nothing about the launches (the interpreter makes them no-ops)
        "cuda.nvtx.range_push", "cuda.nvtx.range_pop", "cuda.nvtx.range", "cuda.nvtx.mark",
        # host-side argument checks (raise on a false Python condition; the message callable runs only then):
        # wrappers validate shapes and dtypes with them. _check_tensor_all reduces a tensor with PyTorch: absent
        "_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented", "_check_with",
        "_check_is_size",
        # switches read as flags (false-rejection hunt 29): which reduction order or path a wrapper takes
        "are_deterministic_algorithms_enabled", "cuda.is_current_stream_capturing", "cuda.is_bf16_supported",
        # (false-rejection hunt 31) the other global flags a drop-in replacement follows: TF32 or IEEE fp32 products
        # (PyTorch's matmul precision, as torch.backends.cuda.matmul.allow_tf32 is read), warn-only determinism,
        # autocast; each returns a str or bool
        "get_float32_matmul_precision", "is_deterministic_algorithms_warn_only_enabled", "is_autocast_enabled",
        # the device-generic queries of torch.accelerator (PyTorch 2.6+), like their torch.cuda forms above
        "accelerator.current_accelerator", "accelerator.current_device_index", "accelerator.current_device_idx",
        "accelerator.device_count", "accelerator.is_available", "accelerator.synchronize",
        "accelerator.current_stream", "accelerator.get_device_capability",
        # the function form of the view-or-copy method allowed in TENSOR_METHODS_ALLOWED
        "ravel",
        # (false-rejection hunt 32) the autocast decorators of a torch.autograd.Function's forward/backward (Liger,
        # Unsloth): they record whether autocast was on and, with cast_inputs under an enabled autocast, convert
        # floating inputs with .to() (a conversion the run-time trace judges); autocast itself stays refused
        "amp.custom_fwd", "amp.custom_bwd",
        # (fp37) their pre-2.4 spellings, deprecated aliases that forward to the two above with device_type="cuda"
        # (older Liger-Kernel and Unsloth modules decorate with them)
        "cuda.amp.custom_fwd", "cuda.amp.custom_bwd",
        # (fp32) Liger's infer_device() and its kind ask each backend whether it is there; the autocast dtype goes
        # with is_autocast_enabled above
        "xpu.is_available", "xpu.device_count", "mps.is_available", "backends.mps.is_available", "get_autocast_dtype",
        # (tp42) the pre-2.4 per-device spellings of the autocast dtype and switch (mamba's, torchao's and
        # transformers' `if torch.is_autocast_enabled(): dtype = torch.get_autocast_gpu_dtype()`): each returns a dtype
        # or bool
        "get_autocast_gpu_dtype", "get_autocast_cpu_dtype", "is_autocast_cpu_enabled",
        # (tp38) Liger-Kernel's backward and persistent launchers size their grid on Intel GPUs from
        # torch.xpu.get_device_properties(x.device).gpu_eu_count, beside torch.cuda.get_device_properties above: a
        # device query that returns a properties record (it raises where PyTorch has no XPU, like the cuda one)
        "xpu.get_device_properties",
        # (tp38) Unsloth's kernels/utils.py binds torch_gpu_device = torch.cuda.device, or torch.xpu.device on Intel
        # GPUs, and launches under `with torch_gpu_device(x.device):`: the device-selecting context manager, as
        # cuda.device above
        "xpu.device",
        # (lead 39) the decorator of an autograd backward (flash-attention's and apex's Triton modules): it runs the
        # function under no_grad and marks the outputs as not differentiable twice; it computes nothing itself
        "autograd.function.once_differentiable",
        # (tp44) torchao defines its Triton kernel modules under `if has_triton():` (from torch.utils._triton): a
        # device query (is Triton installed, and is there a device it compiles for) that returns a bool; the rest of
        # torch.utils._triton (backend names, hashes, TMA probes) stays refused
        "utils._triton.has_triton", "utils._triton.has_triton_package",
    }
)
