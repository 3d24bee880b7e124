"""Platform profiles: what each backend can run, judge and time (DESIGN.md "Platforms"; README "Platforms").

A profile is data: how to detect the platform, the torch device string, the dispatch key ATen wrappers are
registered under, the variable that pins a job to one device, the event-timing API, the dtypes it cannot
run or judge (cases in them are ``unsupported``, never failed), a tolerance scale with its reason (recorded
in each case it changes), which anti-hack tiers it supports (the L3 kernel list only where a kernel profiler
is wired; the dispatch trace and launch accounting everywhere), the constraints its prompt states, the error
texts that are the platform's fault (``platform``, never the submission's), and the public documents each
fact comes from, with the facts that are guesses named in ``guesses``.

Detection is automatic (:func:`detect`); ``--platform`` overrides it. ``--as-profile VENDOR`` runs the CPU
interpreter under a vendor's profile (:func:`emulate`): its pinning variable, dtype limits, tolerance scale,
tier selection, failure patterns and prompt apply, its device runtime does not.
"""
from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable

#: Where an exception must have been raised for a platform's ``failure_patterns`` to apply: Triton (its
#: compiler and backends) or a vendor's PyTorch extension. Not PyTorch itself (``torch._check`` raises any
#: message it is handed) and never the submission.
_LIBRARY_DIRS = ("/triton/", "/torch_npu/", "/torch_musa/")


def _raised_by_the_dispatcher(chain: list[str], err: dict) -> bool:
    """Whether a ``NotImplementedError`` came from PyTorch's C++ dispatcher (no Python frame of its own: the
    innermost frame is the caller's, whose source line is the op call, not a ``raise`` or ``throw``)."""
    if not chain or chain[-1] != "NotImplementedError":
        return False
    lines = [ln.strip() for ln in str(err.get("traceback", "")).splitlines() if ln.startswith("    ")]
    last = lines[-1] if lines else ""
    return bool(last) and not re.search(r"\braise\b|\.throw\(|_check", last)

@dataclass(frozen=True)
class Detection:
    """How :func:`detect_from` recognises a platform from what the process sees (:func:`probe`).

    Attributes:
        module: a vendor extension that must be importable (``torch_npu``, ``torch_musa``), or None.
        torch_attr: the ``torch.<attr>`` namespace whose ``is_available()`` must be true (``cuda``, ``npu``).
        hip: ``torch.version.hip`` must be set (True), unset (False), or either (None).
        markers: environment variables or paths of which one must exist (a vendor's toolkit on a
            CUDA- or HIP-compatible stack); empty: none needed.
        version_tag: a regex searched in the local part of ``torch.__version__`` (after ``+``) that a
            vendor's own PyTorch build carries (``corex`` in ``2.7.1+corex.4.4.0``).
        torch_flag: a ``torch.<flag>`` attribute a vendor's build adds and sets truthy (``torch.corex``).
        device_name: a regex searched in ``torch.cuda.get_device_name(0)`` (``Iluvatar``, ``MetaX``).

    A profile with any of ``markers``, ``version_tag``, ``torch_flag`` or ``device_name`` is recognised
    when at least one of them holds (its *evidence*: :func:`evidence_for`); one with none needs no evidence.
    """

    module: str | None = None
    torch_attr: str | None = None
    hip: bool | None = None
    markers: tuple[str, ...] = ()
    version_tag: str | None = None
    torch_flag: str | None = None
    device_name: str | None = None

    def has_evidence_rules(self) -> bool:
        """Whether this detection needs vendor evidence beyond the device namespace and the build."""
        return bool(self.markers or self.version_tag or self.torch_flag or self.device_name)


#: The environment variable that sets ``Settings.interpreter_max_mb``'s default (``kgb eval``, ``kgb generate``,
#: ``kgb agent`` and ``kernelgenbench.evaluate`` all read it; ``settings.py`` imports it from here, so that this
#: module imports nothing of the package).
INTERPRETER_MAX_MB_ENV = "KGB_INTERPRETER_MAX_MB"
#: One MiB in bytes (the unit of the interpreter's size budget).
MIB = float(1 << 20)
#: The start of every reason :meth:`Platform.oversize_reason` gives (how displays recognise it: it names no
#: parameter, so it is shown for held-out cases too).
TOO_LARGE = "too large for the CPU interpreter"


def case_bytes(op: Any, params: dict[str, Any]) -> float:
    """The bytes a case's tensors move, as the operator's cost model counts them (``Operator.cost(params).bytes``:
    each input read once, each output written once); 0 for an operator whose cost model counts none (views and
    other cases with nothing to compute)."""
    return float(op.cost(params).bytes or 0.0)


def mib_text(nbytes: float, above: float | None = None) -> str:
    """``nbytes`` in MiB as the size budget's messages write it: one decimal from 1 MiB up (``"504.0"``), two
    significant digits below (``"0.047"``), so that a small case's size never reads as 0. With ``above`` (the
    budget in MiB, which ``nbytes`` exceeds) more decimals are written until the text exceeds it: 16 MiB and 8 KiB
    read ``"16.01"``, not ``"16.0"`` over a 16 MiB budget (fresh user 35)."""
    mib = nbytes / MIB
    text = f"{mib:.1f}" if mib >= 1 else f"{mib:.2g}"
    if above is not None and mib > above and mib >= 1:
        for digits in range(2, 7):
            if float(text) > above:
                break
            text = f"{mib:.{digits}f}"
    return text


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
        profiler: a device kernel profiler is wired for the L3 kernel-list check.
        unsupported_dtypes: dtypes whose results this platform cannot judge, with the reason.
            Cases computing in them are reported ``unsupported``, never as pass or failure.
        tolerance_scale: multiplies rtol and atol (1.0 unless ``tolerance_reason`` says why not).
        env: environment variables every sandbox child gets.
        title: the platform in words (``"AMD GPU (ROCm/HIP)"``).
        detection: how :func:`detect_from` recognises it (None: only by ``--platform``).
        timing_api: the event-timing API of its PyTorch (``torch.cuda.Event(enable_timing=True)``).
        tolerance_reason: why ``tolerance_scale`` is not 1.0 (recorded with each case).
        prompt_notes: the platform's constraints, one line each, in the prompt's platform section.
        failure_patterns: ``(regex, reason)``: an error of the candidate whose text matches is the
            platform's (compiler crash, missing intrinsic, missing device op), class ``platform``.
        sources: ``"fact: public document"`` lines, where each documented fact comes from.
        guesses: facts no public document we read states (to be verified on the hardware).
        profile: the vendor profile an interpreter run emulates (:func:`emulate`); None otherwise.
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
    title: str = ""
    detection: Detection | None = None
    timing_api: str | None = None
    tolerance_reason: str | None = None
    prompt_notes: tuple[str, ...] = ()
    failure_patterns: tuple[tuple[str, str], ...] = ()
    sources: tuple[str, ...] = ()
    guesses: tuple[str, ...] = ()
    profile: str | None = None

    def unsupported_reason(self, dtypes: set[Any]) -> str | None:
        """The reason a case computing in ``dtypes`` cannot be judged here, or None."""
        for dt in dtypes:
            key = str(dt).replace("torch.", "")
            if key in self.unsupported_dtypes:
                return f"{key}: {self.unsupported_dtypes[key]}"
        return None

    def oversize_reason(self, op: Any, case: Any, max_mb: float | None) -> str | None:
        """Why ``case`` (a :class:`~kernelgenbench.suite.spec.Case` of ``op``) is too large to judge here, or None.

        Only on the CPU interpreter (``interpreter``; GPU platforms never apply a budget) and only with a budget
        (``max_mb``, ``Settings.interpreter_max_mb``, ``kgb eval --interpreter-max-mb``; None or 0: none): the
        case's size is what its tensors move, its cost model's bytes (each input read once, each output written
        once: :func:`case_bytes`). The reason names the operator, the case id and the size against the budget,
        never the case's parameters (held-out ones are withheld), and starts with :data:`TOO_LARGE`."""
        if not self.interpreter or not max_mb or max_mb <= 0:
            return None
        moved = case_bytes(op, case.params)
        if moved <= max_mb * MIB:
            return None
        return (f"{TOO_LARGE}: {op.id} case {case.id} moves {mib_text(moved, max_mb)} MiB (inputs read + outputs "
                f"written, by its cost model), over the {max_mb:g} MiB budget per case (--interpreter-max-mb or "
                f"{INTERPRETER_MAX_MB_ENV}; 0 lifts it): not run here, a GPU judges it")

    def case_unsupported_reason(self, op: Any, case: Any, max_mb: float | None) -> str | None:
        """Why ``case`` of ``op`` cannot be judged on this platform, decided before it runs, or None: a dtype the
        platform cannot judge (:meth:`unsupported_reason`), else a size over the interpreter's budget
        (:meth:`oversize_reason`). ``run/job.py`` reports such a case ``unsupported`` without running it."""
        return self.unsupported_reason(op.tensor_dtypes(case.params)) or self.oversize_reason(op, case, max_mb)

    @property
    def key(self) -> str:
        """Where verdicts were judged: the name, or ``interpreter/<vendor>`` under an emulated profile (the
        run directory's resume key and the report's platform column)."""
        return f"{self.name}/{self.profile}" if self.profile else self.name

    def anti_hack_tiers(self) -> dict[str, str]:
        """The anti-hack checks this platform applies, by tier (README "Anti-hack tiers")."""
        l3 = "dispatch trace, launch accounting, memory provenance"
        l3 += ", kernel list (device profiler)" if self.profiler else " (no kernel list: no device profiler wired)"
        return {"L1": "static scan", "L2": "ghost replay", "L3": l3}

    def platform_failure(self, err: dict[str, Any]) -> str | None:
        """Why an error the candidate raised is this platform's fault (the first ``failure_patterns``
        match on its message and traceback), or None. The text is the submission's to choose (it may raise
        any message), so a match counts only where the innermost exception of the chain was raised in an
        installed library (Triton, PyTorch, a vendor's extension, NumPy): never in the submission's code."""
        chain = list(err.get("chain") or [err.get("type", "")])
        origins = list(err.get("origins") or [])
        root = (origins[len(chain) - 1] if chain and len(origins) >= len(chain) else "").replace("\\", "/")
        in_library = any(d in root for d in _LIBRARY_DIRS)
        text = f"{err.get('message', '')}\n{err.get('traceback', '')}"
        for pattern, why in self.failure_patterns:
            if not re.search(pattern, text):
                continue
            if in_library or (pattern == _NO_DEVICE_OP[0] and _raised_by_the_dispatcher(chain, err)):
                return why
        return None

    def record_info(self) -> dict[str, Any] | None:
        """What a job record says about the profile (``JobRecord.platform_profile``): None for the CUDA
        and plain interpreter platforms (their records are unchanged), else the profile, whether it is
        emulated, the pinning variable, dtype limits, tolerance scale and anti-hack tiers."""
        if self.name in ("cuda", "interpreter") and not self.profile:
            return None
        return {"profile": self.profile or self.name, "emulated_on": self.name if self.profile else None,
                "visible_devices_var": self.visible_devices_var, "unsupported_dtypes": sorted(self.unsupported_dtypes),
                "tolerance_scale": self.tolerance_scale, "tolerance_reason": self.tolerance_reason,
                "anti_hack": self.anti_hack_tiers()}

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


#: Error texts that are a compiler's or runtime's fault on every non-NVIDIA GPU stack: LLVM aborting
#: (a backend that cannot lower a valid Triton program), and ATen ops the device's PyTorch lacks.
_LLVM_CRASH = (r"LLVM ERROR|PLEASE submit a bug report|Assertion `.*' failed",
               "the platform's compiler crashed (LLVM aborted)")
_NO_DEVICE_OP = (r"Could not run '[^']+' with arguments from the '(PrivateUse1|NPU|npu|MUSA|musa)' backend",
                 "the platform's PyTorch lacks an ATen kernel the harness needs on this device")

_UNTIMED = ("timing off: the timed loop (sandbox/timed_loop.py) is written against torch.cuda events and "
            "torch.cuda._sleep; the vendor's event API (timing_api) is documented but the loop is not ported, so "
            "speedups are not reported on this platform yet")

_PORTABLE_MATH = ("Call math functions through `tl`/`tl.math` or `triton.language.extra.libdevice` (it dispatches "
                  "to this backend's math library); never `triton.language.extra.cuda` or inline PTX "
                  "(`tl.inline_asm_elementwise`), which exist on NVIDIA only.")

#: The paper's failure analysis of the vendor stacks names three kinds of platform constraint a kernel written for
#: NVIDIA trips over: stricter type inference, missing math functions (_PORTABLE_MATH) and unsupported language
#: features. These two lines state the first and the last for every vendor prompt; the concrete rules are ours.
_STRICT_TYPES = ("Type inference is stricter than on NVIDIA's backend: make every conversion explicit "
                 "(`.to(tl.float32)` before math on fp16, bf16 or integer tiles; one dtype on both sides of `tl.where` "
                 "and of arithmetic; `tl.zeros`/`tl.full` with an explicit dtype; an explicit `.to(tl.int64)` where "
                 "offsets may pass 2**31).")
_CORE_LANGUAGE = ("Stay within the core Triton language: NVIDIA-only features (TMA tensor descriptors, "
                  "`tl.inline_asm_elementwise`, warp specialization, thread-block clusters) are missing on this "
                  "backend or lowered differently.")
_CONSTRAINT_GUESS = ("the prompt's type-inference and language-feature lines: the paper's failure categories made "
                     "concrete by us, not a vendor document")


#: FlagGems (BAAI's Triton operator library, the FlagOS stack the vendors contribute backends to) at the commit read:
#: its per-vendor backend declarations and its device detector are public code, not vendor documentation.
_FLAGGEMS = "https://github.com/FlagOpen/FlagGems/blob/532ff438c70343d7aec9becdabb76a71225a0553/src/flag_gems/runtime"
_FLAGGEMS_FP64 = (f"no fp64: FlagGems' device detector lists this vendor among those without fp64 support "
                  f"(UNSUPPORT_FP64) {_FLAGGEMS}/backend/device.py")

PROFILES: dict[str, Platform] = {
    "cuda": Platform(
        "cuda", "cuda", "CUDA_VISIBLE_DEVICES", "CUDA", profiler=True, title="NVIDIA GPU (CUDA)",
        detection=Detection(torch_attr="cuda", hip=False),
        timing_api="torch.cuda.Event(enable_timing=True)",
        sources=("device 'cuda', torch.cuda.is_available(), torch.cuda.Event timing: PyTorch 'CUDA semantics' "
                 "https://pytorch.org/docs/stable/notes/cuda.html",
                 "CUDA_VISIBLE_DEVICES: NVIDIA MPS appendix 'Environment Variables' "
                 "https://docs.nvidia.com/deploy/mps/latest/appendix-environment-variables.html",
                 "kernel list: torch.profiler with CUDA activities (CUPTI), "
                 "https://pytorch.org/docs/stable/profiler.html",
                 "everything else: measured on H200 and H100 80 GB (bench/results/gpu-gate)")),
    "rocm": Platform(
        "rocm", "cuda", "HIP_VISIBLE_DEVICES", "CUDA", profiler=True, title="AMD GPU (ROCm/HIP)",
        detection=Detection(torch_attr="cuda", hip=True),
        timing_api="torch.cuda.Event(enable_timing=True) (HIP events behind the torch.cuda API)",
        prompt_notes=(
            "AMD GPUs run Triton through its AMD backend: a wavefront is 64 lanes on CDNA GPUs (MI200/MI300), so "
            "`num_warps=4` is 256 threads; per-workgroup shared memory (LDS) is 64 KiB, far less than on "
            "NVIDIA H100/H200, so large tiles with many `num_stages` fail to compile (out of resources).",
            _PORTABLE_MATH,
            _STRICT_TYPES,
            _CORE_LANGUAGE,
            "Tensors use the `cuda` device type and `torch.cuda` APIs (PyTorch's HIP build reuses them); "
            "ATen wrappers register under the CUDA dispatch key.",
        ),
        failure_patterns=(_LLVM_CRASH,
                          (r"hipErrorNoBinaryForGpu|no kernel image is available|ld\.lld: error: undefined symbol: "
                           r"__ocml_\w+", "the platform lacks code or a device-library function (missing intrinsic)")),
        sources=(
            "device 'cuda', torch.cuda interfaces reused, detection by torch.version.hip: PyTorch 'HIP (ROCm) "
            "semantics' https://pytorch.org/docs/stable/notes/hip.html",
            "HIP_VISIBLE_DEVICES (also CUDA_VISIBLE_DEVICES; ROCR_VISIBLE_DEVICES recommended on Linux): ROCm 'HIP "
            "environment variables' https://rocm.docs.amd.com/projects/HIP/en/latest/reference/env_variables.html",
            "wavefront 64 on CDNA, LDS 64 KiB: ROCm HIP programming guide (hardware implementation) "
            "https://rocm.docs.amd.com/projects/HIP/en/latest/understand/hardware_implementation.html"),
        guesses=(
            "dispatch key CUDA: from PyTorch's source (the HIP build registers its kernels as CUDA), not its docs",
            "kernel list: torch.profiler through Kineto's ROCm tracer reports device kernels as on CUDA "
            "(not yet run on AMD hardware here)",
            "no dtype limits and tolerance scale 1.0: not measured on AMD hardware",
            "failure patterns: the texts ROCm tools print, not yet collected from real failures",
            _CONSTRAINT_GUESS)),
    "interpreter": Platform(
        "interpreter", "cpu", None, None, interpreter=True, timing=False,
        unsupported_dtypes={},
        env={"TRITON_INTERPRET": "1"}, title="CPU, through the Triton interpreter (TRITON_INTERPRET=1)",
        timing_api=None,
        sources=("TRITON_INTERPRET=1: Triton's debugging docs https://triton-lang.org/main/programming-guide/"
                 "chapter-3/debugging.html",
                 "interpreter limits: measured here (README 'Tiers and platforms')",
                 "bf16, fp8, TF32: Triton 3.6's interpreter computes bf16 on bit patterns as integers, converts "
                 "fp8 wrongly (ties rounded up, no saturation, no e4m3fn NaN) and ignores tl.dot's input "
                 "precision; the harness replaces those operations with the GPU's numbers "
                 "(sandbox/interpreter_numerics.py; fp8 saturation as PTX's cvt.rn.satfinite, the only fp8 "
                 "conversion the PTX ISA has, https://docs.nvidia.com/cuda/parallel-thread-execution/ (cvt)), "
                 "tested in tests/test_interpreter_{bf16,fp8,tf32}.py")),
    "ascend": Platform(
        "ascend", "npu", "ASCEND_RT_VISIBLE_DEVICES", "PrivateUse1", timing=False,
        title="Huawei Ascend NPU (torch_npu)",
        detection=Detection(module="torch_npu", torch_attr="npu"),
        timing_api="torch.npu.Event(enable_timing=True)",
        unsupported_dtypes={
            "float64": "Triton-Ascend's operator support table has no fp64 column: fp64 kernels cannot be "
                       "compiled for the NPU",
            "uint32": "Triton-Ascend's operator support table marks uint32 unsupported for every operation"},
        tolerance_scale=2.0,
        tolerance_reason=("Ascend computes transcendental functions in its vector unit's own approximations, not "
                          "NVIDIA's libdevice: rtol and atol are doubled (a guess until measured on an NPU)"),
        prompt_notes=(
            "The NPU runs Triton through Triton-Ascend: no fp64 anywhere in a kernel, and no uint32.",
            "Stricter type inference: `tl.dot` takes fp16, bf16 or fp32 tiles only (no integer dot); math "
            "functions (`exp`, `log`, `sqrt`, `rsqrt`, `sin`, `cos`, `erf`, `sigmoid`, ...) take floating "
            "tiles only: cast integer tiles with `.to(tl.float32)` first.",
            "Unsupported language features: avoid `while` loops, `break`/`continue` and early `return` inside "
            "kernels (use `for` with a constexpr bound and masks); keep BLOCK sizes below 65536 elements.",
            "An NPU has a few dozen AI cores: prefer a grid of about one program per core that loops over "
            "blocks, over a grid of one tiny program per block.",
            _PORTABLE_MATH,
            _CORE_LANGUAGE,
        ),
        failure_patterns=(_LLVM_CRASH, _NO_DEVICE_OP,
                          (r"bishengir|BiShengIR|MLIRCompilationError",
                           "the platform's compiler (BiSheng IR) failed on the kernel")),
        sources=(
            "ASCEND_RT_VISIBLE_DEVICES: CANN environment variables "
            "https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/envvar/envref_07_0028.html",
            "torch.npu.Event(enable_timing=True): Ascend Extension for PyTorch API "
            "https://www.hiascend.com/doc_center/source/zh/Pytorch/700/apiref/apilist/ptaoplist_000964.html",
            "device 'npu', torch_npu.npu.is_available(): Ascend ModelZoo 'PyTorch migration API' "
            "https://gitcode.com/Ascend/ModelZoo-PyTorch/blob/master/PyTorch/docs/appendixes/pytorch_migrate_api.md",
            "rename_privateuse1_backend supported: Ascend PyTorch native API support list "
            "https://www.hiascend.com/document/detail/zh/Pytorch/60RC2/apiref/apilist/ptaoplist_000054.html",
            "dtype support per Triton op (no fp64 column, uint32 unsupported, dot/exp/log on floats only): "
            "Triton-Ascend op support overview https://ascend.github.io/triton-ascend/sources/python-api/outline.html",
            "device 'npu', query tool 'npu-smi info', ATen kernels registered under PrivateUse1 (public code): "
            f"FlagGems' Ascend backend {_FLAGGEMS}/backend/_ascend/__init__.py",
            _FLAGGEMS_FP64),
        guesses=(
            "dispatch key PrivateUse1: torch_npu is an out-of-tree backend renamed to 'npu' (the API list "
            "supports rename_privateuse1_backend, FlagGems registers there; Huawei's docs do not state the key)",
            "tolerance scale 2.0: not measured",
            "no while/break/continue/early return, BLOCK < 65536: a third-party rules page for Triton-Ascend, not "
            "Huawei's docs",
            "no kernel list: torch_npu ships its own profiler, not wired into the L3 check here",
            _UNTIMED,
            "failure patterns: not yet collected from real failures")),
    "musa": Platform(
        "musa", "musa", "MUSA_VISIBLE_DEVICES", "PrivateUse1", timing=False,
        title="Moore Threads GPU (MUSA, torch_musa)",
        detection=Detection(module="torch_musa", torch_attr="musa"),
        timing_api="torch.musa.Event(enable_timing=True)",
        unsupported_dtypes={
            "float64": "torch_musa computes fp64 through fp32 ('Dynamic Double Casting'), so fp64 results cannot "
                       "be held to the fp64 tolerance"},
        prompt_notes=(
            "Moore Threads GPUs run Triton through the MUSA backend; tensors use the `musa` device type and ATen "
            "wrappers register under the PrivateUse1 dispatch key.",
            "fp64 arithmetic is not native: keep kernels in fp32/fp16/bf16.",
            _PORTABLE_MATH,
            _STRICT_TYPES,
            _CORE_LANGUAGE,
        ),
        failure_patterns=(_LLVM_CRASH, _NO_DEVICE_OP),
        sources=(
            "device 'musa' (switch the backend string from cuda to musa): torch_musa README "
            "https://github.com/MooreThreads/torch_musa",
            "PrivateUse1 dispatch key: torchada README (Moore Threads) https://pypi.org/project/torchada/",
            "Dynamic Double Casting: torch_musa README https://github.com/MooreThreads/torch_musa",
            "device 'musa', query tool mthreads-gmi (public code): FlagGems' Moore Threads backend "
            f"{_FLAGGEMS}/backend/_mthreads/__init__.py",
            _FLAGGEMS_FP64),
        guesses=(
            "FlagGems registers its ATen kernels under 'MUSA' (its default key, the device name upper-cased) where "
            "torchada names PrivateUse1: both should reach torch_musa's renamed PrivateUse1 backend; not run here",
            "MUSA_VISIBLE_DEVICES: used in public MUSA scripts, not found in Moore Threads' docs "
            "(MTHREADS_VISIBLE_DEVICES is the container toolkit's)",
            "torch.musa.Event and torch.musa.is_available(): torch_musa's source mirrors torch.cuda; not in its docs",
            "float64 unsupported: inferred from Dynamic Double Casting",
            _UNTIMED,
            "no kernel list (profiler not wired); tolerance 1.0 not measured; failure patterns not collected",
            _CONSTRAINT_GUESS)),
    "dcu": Platform(
        "dcu", "cuda", "HIP_VISIBLE_DEVICES", "CUDA", title="Hygon DCU (DTK, HIP)",
        detection=Detection(torch_attr="cuda", hip=True, markers=("DTK_HOME", "/opt/dtk"), version_tag=r"das|dtk",
                            device_name=r"\bDCU\b|Hygon|\bK100|\bZ100|\bBW\d"),
        timing_api="torch.cuda.Event(enable_timing=True)",
        prompt_notes=(
            "Hygon DCUs run a ROCm-derived stack (DTK): tensors use the `cuda` device type; a wavefront is 64 "
            "lanes and shared memory per workgroup is 64 KiB, so keep tiles and `num_stages` modest.",
            _PORTABLE_MATH,
            _STRICT_TYPES,
            _CORE_LANGUAGE,
        ),
        failure_patterns=(_LLVM_CRASH,
                          (r"hipErrorNoBinaryForGpu|ld\.lld: error: undefined symbol: __ocml_\w+",
                           "the platform lacks code or a device-library function (missing intrinsic)")),
        sources=("no Hygon document found for DTK itself; the HIP facts follow ROCm's docs "
                 "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/env_variables.html",
                 "device 'cuda', query tool hy-smi, Triton's HIP backend and its libdevice (triton_extra_name 'hip') "
                 f"(public code): FlagGems' Hygon backend {_FLAGGEMS}/backend/_hygon/__init__.py",
                 "DTK releases as /opt/dtk and as 'dtk24.04'-tagged PyTorch images (public Dockerfiles and READMEs of "
                 "DCU users, image.sourcefind.cn/dcu/admin/base/pytorch; no Hygon document)"),
        guesses=(
            "detection on a HIP build of PyTorch by the DTK install (DTK_HOME or /opt/dtk), a 'das'/'dtk' torch "
            "version tag, or a DCU device name (K100_AI, Z100, BW...: names seen in public scripts, not documented)",
            "HIP_VISIBLE_DEVICES, torch.cuda.Event, wavefront 64, LDS 64 KiB: by ROCm lineage",
            "no kernel list (profiler not verified); no dtype limits, tolerance 1.0: not measured",
            _CONSTRAINT_GUESS)),
    "iluvatar": Platform(
        "iluvatar", "cuda", "CUDA_VISIBLE_DEVICES", "CUDA", title="Iluvatar CoreX GPU (CUDA-compatible)",
        detection=Detection(torch_attr="cuda", hip=False, markers=("COREX_HOME", "/usr/local/corex"),
                            version_tag=r"corex", torch_flag="corex", device_name=r"Iluvatar"),
        timing_api="torch.cuda.Event(enable_timing=True)",
        unsupported_dtypes={
            "float64": "FlagGems, the FlagOS operator library Iluvatar contributes to, lists Iluvatar without fp64 "
                       "support: fp64 kernels are not judged on this platform"},
        prompt_notes=(
            "Iluvatar CoreX GPUs run a CUDA-compatible stack with their own Triton backend: tensors use the `cuda` "
            "device type; no PTX (`tl.inline_asm_elementwise`), and not every libdevice function exists.",
            "No fp64 in kernels: compute in fp32 (or fp16/bf16 with fp32 accumulation).",
            _PORTABLE_MATH,
            _STRICT_TYPES,
            _CORE_LANGUAGE,
        ),
        failure_patterns=(_LLVM_CRASH,),
        sources=(
            "device 'cuda' (torch.cuda), query tool ixsmi (public code): FlagGems' Iluvatar backend "
            f"{_FLAGGEMS}/backend/_iluvatar/__init__.py",
            "torch.corex set by the vendor's PyTorch (public code): FlagGems' device detector "
            f"{_FLAGGEMS}/backend/device.py",
            _FLAGGEMS_FP64),
        guesses=(
            "no Iluvatar document was found in the indexed sources: the facts above are public code, not the vendor's",
            "CUDA key, CUDA_VISIBLE_DEVICES, torch.cuda.Event: the CUDA-compatible design (a public note pins CoreX "
            "jobs with IX_VISIBLE_DEVICES, maybe the container toolkit's, as MTHREADS_VISIBLE_DEVICES is MUSA's)",
            "detection also by the CoreX install (COREX_HOME or /usr/local/corex), a 'corex' torch version tag "
            "(torch 2.7.1+corex.4.4.0) and the device name ('Iluvatar BI-V150'): seen in public scripts and notes",
            "no kernel list (profiler not verified); tolerance 1.0: not measured",
            _CONSTRAINT_GUESS)),
    "metax": Platform(
        "metax", "cuda", "MACA_VISIBLE_DEVICES", "CUDA", title="MetaX GPU (MACA, CUDA-compatible)",
        detection=Detection(torch_attr="cuda", hip=False, markers=("MACA_PATH", "/opt/maca"), version_tag=r"metax",
                            device_name=r"MetaX"),
        timing_api="torch.cuda.Event(enable_timing=True)",
        prompt_notes=(
            "MetaX GPUs run the MACA stack, CUDA-compatible, with their own Triton backend: tensors use the "
            "`cuda` device type; no PTX (`tl.inline_asm_elementwise`).",
            "Shared memory is 64 KiB per block: size tiles and `num_stages` so that a kernel's buffers fit (the "
            "tile sizes tuned for NVIDIA H100/H200 often do not); keep every `tl.dot` block dimension >= 16.",
            _PORTABLE_MATH,
            _STRICT_TYPES,
            _CORE_LANGUAGE,
        ),
        failure_patterns=(_LLVM_CRASH,
                          (r"tn and tk not meet", "the platform's Triton rejected an MMA tile shape (a compiler "
                                                 "assertion of the vendor backend)")),
        sources=("MACA_VISIBLE_DEVICES: MetaX MCCL user guide, environment variables "
                 "https://developer.metax-tech.com/api/client/document/preview/869/split_files/"
                 "%E7%8E%AF%E5%A2%83%E5%8F%98%E9%87%8F.html",
                 "device 'cuda' (torch.cuda), query tool mx-smi (public code): FlagGems' MetaX backend "
                 f"{_FLAGGEMS}/backend/_metax/__init__.py"),
        guesses=(
            "CUDA key, torch.cuda.Event: the CUDA-compatible design; not in the docs we read",
            "detection by the MACA install (MACA_PATH or /opt/maca), a 'metax' torch version tag (2.8.0+metax3.3.0.2) "
            "or the device name ('MetaX C500'): seen in public scripts and notes, not in MetaX's docs",
            "64 KiB shared memory per block (C500/C550) and the vendor Triton's bf16 MMA assertion on 8-row tiles "
            "('tn and tk not meet conditon'): third-party notes from MetaX machines, not MetaX's docs",
            "no kernel list (profiler not verified); no dtype limits, tolerance 1.0: not measured",
            _CONSTRAINT_GUESS)),
}

#: Detection order of :func:`detect_from`: vendor extensions first, then the stacks behind ``torch.cuda``
#: whose toolkit marks them, then plain ROCm and CUDA.
DETECTION_ORDER = ("ascend", "musa", "dcu", "iluvatar", "metax", "rocm", "cuda")


def probe() -> dict[str, Any]:
    """What the process sees, for :func:`detect_from`: ``hip`` (``torch.version.hip``), ``version``
    (``torch.__version__``), ``available`` (``torch.<attr>.is_available()`` per detected namespace; a vendor
    extension is imported only when installed), ``markers`` (the environment variables and paths of the
    profiles that exist), ``flags`` (the ``torch.<flag>`` attributes of the profiles that are set and truthy)
    and ``device_name`` (``torch.cuda.get_device_name(0)`` where ``torch.cuda`` answers, else None: the run
    directory's env.json asks the same of every device). A name that cannot be read is None."""
    import torch

    available: dict[str, bool] = {}
    for name in DETECTION_ORDER:
        det = PROFILES[name].detection
        if det is None or det.torch_attr is None or det.torch_attr in available:
            continue
        if det.module is not None:
            if importlib.util.find_spec(det.module) is None:
                continue
            try:
                __import__(det.module)
            except Exception:  # noqa: BLE001 - an extension that fails to import means no such device
                continue
        ns = getattr(torch, det.torch_attr, None)
        try:
            available[det.torch_attr] = bool(ns is not None and ns.is_available())
        except Exception:  # noqa: BLE001
            available[det.torch_attr] = False
    dets = [PROFILES[name].detection or Detection() for name in DETECTION_ORDER]
    markers = {m for det in dets for m in det.markers
               if (os.environ.get(m) if not m.startswith("/") else os.path.exists(m))}
    flags = {d.torch_flag for d in dets if d.torch_flag and bool(getattr(torch, d.torch_flag, False))}
    device_name = None
    if available.get("cuda"):
        try:
            device_name = str(torch.cuda.get_device_name(0))
        except Exception:  # noqa: BLE001 - a device that cannot be named is identified by the other facts
            device_name = None
    return {"hip": getattr(torch.version, "hip", None), "version": str(torch.__version__),
            "available": available, "markers": sorted(markers), "flags": sorted(flags), "device_name": device_name}


def evidence_for(name: str, facts: dict[str, Any]) -> list[str]:
    """Which of profile ``name``'s vendor evidence ``facts`` (:func:`probe`'s answer) show, in words
    (``["torch.corex", "torch version tag 'corex'"]``); empty where none holds or the profile needs none."""
    det = PROFILES[name].detection or Detection()
    found = [f"toolkit {m}" for m in det.markers if m in set(facts.get("markers") or ())]
    local = str(facts.get("version") or "").partition("+")[2]
    if det.version_tag and local and re.search(det.version_tag, local, re.IGNORECASE):
        found.append(f"torch version tag {local!r}")
    if det.torch_flag and det.torch_flag in set(facts.get("flags") or ()):
        found.append(f"torch.{det.torch_flag}")
    dev = facts.get("device_name") or ""
    if det.device_name and dev and re.search(det.device_name, dev):
        found.append(f"device name {dev!r}")
    return found


def detect_from(facts: dict[str, Any]) -> Platform:
    """The platform ``facts`` (:func:`probe`'s answer) describe: the first profile of
    :data:`DETECTION_ORDER` whose device namespace answers, whose build matches (``torch.version.hip`` set
    for HIP stacks, unset for CUDA ones) and, for a vendor stack behind ``torch.cuda``, whose vendor
    evidence holds (:func:`evidence_for`: a toolkit, a version tag, a torch flag or a device name); else
    the interpreter."""
    avail = facts.get("available") or {}
    hip = bool(facts.get("hip"))
    for name in DETECTION_ORDER:
        det = PROFILES[name].detection
        if det is None or not avail.get(det.torch_attr or ""):
            continue
        if det.hip is not None and det.hip != hip:
            continue
        if det.has_evidence_rules() and not evidence_for(name, facts):
            continue
        return PROFILES[name]
    return PROFILES["interpreter"]


def emulate(vendor: str) -> Platform:
    """The CPU interpreter under ``vendor``'s profile (``kgb eval --platform interpreter --as-profile
    VENDOR``): the vendor's pinning variable, dtype limits (with the interpreter's own), tolerance scale,
    failure patterns and prompt notes; the interpreter's device, dispatch (wrappers called directly),
    untimed runs and lack of a kernel profiler.

    Raises:
        ValueError: ``vendor`` names no vendor profile.
    """
    vendors = [n for n in PROFILES if n != "interpreter"]
    if vendor not in vendors:
        raise ValueError(f"unknown profile {vendor!r} for --as-profile; known: {', '.join(vendors)}")
    base, v = PROFILES["interpreter"], PROFILES[vendor]
    return replace(base, profile=vendor, visible_devices_var=v.visible_devices_var,
                   unsupported_dtypes={**v.unsupported_dtypes, **base.unsupported_dtypes},
                   tolerance_scale=v.tolerance_scale, tolerance_reason=v.tolerance_reason,
                   prompt_notes=v.prompt_notes, failure_patterns=v.failure_patterns,
                   title=f"{base.title}, under the {v.title} profile", sources=v.sources, guesses=v.guesses)


def detect(override: str | None = None, as_profile: str | None = None,
           probe_fn: Callable[[], dict[str, Any]] | None = None) -> Platform:
    """Pick the platform: ``override`` if given, else the interpreter where ``TRITON_INTERPRET=1``, else
    what :func:`probe` finds (:func:`detect_from`). ``as_profile`` runs the interpreter under a vendor's
    profile (:func:`emulate`).

    Raises:
        ValueError: ``override`` or ``as_profile`` names no profile, or ``as_profile`` without the
            interpreter platform.
    """
    if override and override not in PROFILES:
        raise ValueError(f"unknown platform {override!r}; known: {', '.join(PROFILES)}")
    if as_profile:
        if override not in (None, "interpreter"):
            raise ValueError(f"--as-profile {as_profile} runs the CPU interpreter under a vendor profile: use it "
                             f"with --platform interpreter (not {override!r})")
        return emulate(as_profile)
    if override:
        return PROFILES[override]
    if os.environ.get("TRITON_INTERPRET") == "1":
        return PROFILES["interpreter"]
    return detect_from((probe_fn or probe)())


def visible_device(platform: Platform, index: int, environ: dict[str, str] | None = None) -> str:
    """The value of ``platform.visible_devices_var`` that pins a child process to device ``index`` as *this*
    process numbers its devices.

    When this process already sees a subset (``CUDA_VISIBLE_DEVICES=2,3`` set by the user, or by Ray for the GPU a
    task holds), its device ``index`` is the ``index``-th entry of that list, not the physical device ``index``:
    a child given ``str(index)`` would run on another GPU than the one its slot, gate and ceilings belong to.

    Args:
        platform: a profile with a ``visible_devices_var``.
        index: the device index in this process (0-based, as ``torch.device("cuda", index)``).
        environ: the environment to read (default ``os.environ``).

    Returns:
        the entry to set in the child (an index or a GPU UUID, as this process's own list names it).

    Raises:
        ValueError: the platform has no pinning variable, or ``index`` is past the devices this process sees.
    """
    var = platform.visible_devices_var
    if var is None:
        raise ValueError(f"platform {platform.name}: no visible-devices variable to pin a device with")
    env = os.environ if environ is None else environ
    current = env.get(var)
    if current is None:
        return str(index)
    entries = [e.strip() for e in current.split(",") if e.strip()]
    if not 0 <= index < len(entries):
        raise ValueError(f"platform {platform.name}: device {index} is not among the {len(entries)} device(s) "
                         f"this process sees ({var}={current!r})")
    return entries[index]


def device_count(platform: Platform) -> int:
    """Number of devices of ``platform`` visible to this process (1 for the interpreter)."""
    if platform.interpreter:
        return 1
    import torch

    if platform.device == "cuda":
        return torch.cuda.device_count()
    ns = getattr(torch, platform.device, None)
    return int(ns.device_count()) if ns is not None and hasattr(ns, "device_count") else 1
