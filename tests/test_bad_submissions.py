"""Every failure class, provoked by a bad submission, must be reported as exactly that class.

The files live in tests/bad/, named ``<what>__<source>__<op>.py`` (a whole submission) or
``<what>__<source>__<op>.patch.py`` (an oracle with a declared patch: tests/fixture_files.py); each
runs through the real pipeline (L1, the sandbox child, the verifier, L2, L3) on the CPU interpreter.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixture_files import find_fixture, fixture_kind, fixture_op, fixtures, write_submission

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.registry import get_operator

BAD = Path(__file__).parent / "bad"
#: KGB_TEST_PLATFORM=cuda runs the same files on a GPU (where the out-of-bounds kernel also applies).
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]

#: file stem prefix -> expected failure class on the interpreter
EXPECTED = {
    "syntax": "syntax",
    "missing_wrapper": "missing_wrapper",
    "signature": "signature",
    "signature_default": "signature",  # an optional parameter's default differs from the interface's
    "import_error": "import_error",
    "import_hang": "timeout",
    "wrong_values": "wrong_result",
    "calls_own_op": "dispatch_recursion",
    "operator_recursion": "dispatch_recursion",
    "hybrid": "static_scan",
    "hybrid_ops": "profile",
    "decoy": "static_scan",
    "decoy_ops": "profile",
    "exits": "runtime_error",
    "ghost": "ghost",
    "no_launch": "not_exercised",
    "static_scan": "static_scan",
    # red-team regressions
    "escape_sys": "static_scan",      # torch.sys.modules -> the hooks' state (module reached through a re-export)
    "loader_exec": "static_scan",     # rt42: __loader__.source_to_code + load_module ran a bytes literal as the
                                      # module's code, unscanned; it reached STATE and computed with ATen "inside a
                                      # launch" (passed aten::erfc 9/9 at a6ad926)
    "code_rebuild": "static_scan",    # rt43: coro.cr_code.replace(co_names=("exec",)) made into a function by
                                      # type(f) ran loader_exec's hidden payload (passed aten::erfc 9/9 at 76a872c)
    "getstate_exec": "static_scan",   # rt43: tl.__getstate__()["__builtins__"]["exec"] ran loader_exec's hidden
                                      # payload (object.__getstate__ is __dict__; passed aten::erfc 9/9 at 76a872c)
    "jit_option_iter": "profile",     # rt43: triton.jit(do_not_specialize=<map of C callables>) computed erfc with
                                      # ATen when the GPU compile check's mirror iterated it inside the launch
                                      # window, untraced (passed aten::erfc 9/9 at 76a872c on the interpreter)
    "tensor_method_value": "static_scan",  # rt43: operator.call(torch.Tensor.erf, x): a tensor method as a value
                                           # passed L1 (the L3 trace failed it as profile)
    "attr_error_obj": "static_scan",  # rt44: a caught AttributeError's obj (torch for torch.kgb_missing) opaque to
                                      # L1: obj.sys.modules -> STATE, erfc with ATen "inside a launch" (passed
                                      # aten::erfc 9/9 at 175b6c3)
    "global_enum": "static_scan",     # rt44: enum.global_enum with __module__ = the sandbox's dispatch module
                                      # replaced its _op_key and host_read: ATen compute counted as allocations,
                                      # host reads unlogged (passed aten::erfc 9/9 at 175b6c3)
    "loader_rebound": "static_scan",  # rb42: loader_exec after `__loader__ = __loader__`: a module-level binding
                                      # made L1 take the import system's global for the file's own name
    # rb38 (the allowances of third-party-kernel hunt tp38)
    "kept_backward": "static_scan",   # a decorator of the file keeps an autograd backward that L1 took for code only
                                      # a backward pass runs; the wrapper calls it: unscanned, it reaches the sandbox
                                      # state through sys.modules and hides its PyTorch compute (passed at tp38)
    "match_backward": "static_scan",  # the same backward reached by a class pattern, case object(backward=run): no
                                      # attribute node or string for L1 to see (passed at tp38)
    "match_args": "static_scan",      # the same through a positional class pattern, case _Any(run), whose computed
                                      # __match_args__ names "backward" (__subclasshook__ accepts any subject)
    "factory_kept_backward": "static_scan",  # rt41: kept_backward through a decorator factory of FLA's input_guard
                                             # shape called with a positional argument, which it wraps and hands
                                             # the backward to (only its options may be passed; bare is fine)
    "alias_kept_backward": "static_scan",  # rt41: kept_backward through a module name bound to custom_bwd and,
                                           # on a branch always taken, to a decorator that keeps it
    "rebound_bwd_decorator": "static_scan",  # rb41: kept_backward under @custom_bwd imported from torch.amp and
                                             # bound again by a def on a branch always taken (L1 took the import)
    "rebound_wraps": "static_scan",  # rb41: kept_backward through Liger's wrapping shape whose `wraps`, imported from
                                     # functools, a def on a branch always taken binds again to one that keeps it
    "shadow_staticmethod": "static_scan",  # kept_backward with the class body's own `staticmethod = keep` (L1 judged
                                           # @staticmethod by the module's builtin)
    # rb39 (the allowances of third-party-kernel hunt tp39): a class no code of the file names is left unscanned as
    # unreachable, but making a class runs code that hands it (or its methods) out; each method below imports sys,
    # reaches the sandbox's state and hides its PyTorch rms_norm from the dispatch trace (each passed at tp39)
    "class_body_handout": "static_scan",     # the class body appends its own method to a module list
    "init_subclass_handout": "static_scan",  # a base class of the file keeps every subclass in __init_subclass__
    "set_name_handout": "static_scan",       # a descriptor of the class body is handed the class by __set_name__
    "enum_member_init": "static_scan",       # an enum.Enum's metaclass calls the members' __init__ at import
                                             # (these four refused since tp39 b6d0c31, made inertly)
    "method_default_handout": "static_scan",  # in an inert class, another method's default appends the method
    "subscript_key_handout": "static_scan",   # in an inert class, `_IMPLS[compute] = 0` keeps it as a dict key
    "annotation_registry": "static_scan",     # singledispatch's register reads a @staticmethod's annotations (tp39: a
                                              # type position again) and hands triton.runtime.JITFunction back; the
                                              # file replaces JITFunction.run (a plain def's did so before tp39)
    # rt39b: the harness's hooks of Triton's and PyTorch's classes, reached by the submission's own calls and stores
    "hook_kwarg": "profile",          # k.run(..., _interp=False, _orig=probe): the launch hook took its wrapped run
                                      # as a keyword default, so a launch ran only probe, counted; the ghost replay
                                      # called probe with warmup=True (a ghost detector; passed before rt39b)
    "type_alias_run": "static_scan",  # _KT = type(kernel); _KT.run = f: Triton's kernel class, where the harness
                                      # hooks launches, changed through a name (rb39 found; passed before rt39b);
                                      # behind L1 Triton's runtime classes are snapshotted (BEHIND_L1)
    "kernel_attr_run": "static_scan",  # kernel.run = f on the file's own kernel: an instance attribute shadows the
                                       # hooked class run (a pass-through here; passed before rt39b)
    "kernel_attr_param": "profile",   # kernel_attr_run through a function parameter (L1 passes): the launch rule
    "type_param_run": "profile",      # type_alias_run through a function parameter (L1 passes): the runtime-class
                                      # snapshot (both passed before rt39b)
    "grid_compute": "profile",        # PyTorch compute inside the launch-grid callable
    "default_cache": "profile",       # PyTorch in the grid callable, cached across calls in a mutable default
                                      # (L1 no longer judges state across calls: L3 sees the filling call)
    "ghost_detect": "profile",        # detects ghost replay, computes on the host with item()/fill_
    "meta_return": "wrong_result",    # returns a meta tensor: the submission's fault, not the platform's
    "kernel_body_torch": "static_scan",  # PyTorch inside a @triton.jit body (runs only on the interpreter);
                                      # L1 kernel-body; L3 behind it: test_..._behind_l1 below
    "pre_run_hook": "profile",        # PyTorch in a kernel pre-run hook
    "attrgetter": "static_scan",      # operator.attrgetter("run.__globals__") to reach the hooks
    "methodcaller": "static_scan",    # operator.methodcaller("tolist") + host compute
    "str_read": "profile",            # str(tensor) as a host read channel (not dispatched)
    "tensor_subclass": "static_scan",  # a torch.Tensor subclass whose handler computes outside the dispatch trace
    "jit_fn_body": "static_scan",     # PyTorch in a @triton.jit body called as Python through .fn
    "module_py_helper": "profile",    # a kernel body calls a module-level plain Python function (fp31: L1 admits
                                      # module-level variables there; the launch rule judges their values)
    "py_combine": "profile",          # a plain Python function as a scan's COMBINE: tl.constexpr (fp31: L1 admits
                                      # constexpr combine functions; the launch rule admits only jit functions)
    "poison_true": "wrong_result",    # bool outputs: stores only the False results (True is the main poison)
    "poison_int": "wrong_result",     # int16 outputs: never stores a value equal to the main poison
    # L2 ghost-replay detectors (select_backward computed with allowed copies, a dummy launch for
    # proof; each passed L1-L3 before the replay was hardened)
    "ghost_flag": "ghost",            # a flag kernel read back with .item(): host reads are replayed
    "ghost_raise": "ghost",           # a launch that raises in a normal run only: launch errors are replayed
    "ghost_builtin_raise": "ghost",   # tp43: the same through `raise RuntimeError("boom")` in the kernel body
    "attr_foreign_self": "static_scan",  # tp43: a launcher method called unbound on an nn.Module whose buffer
                                         # "seen" is a tensor: self.seen.add(x, alpha=-1) is Tensor.add (neg)
    "attr_slice_self": "static_scan",  # rb43: the same unbound call with a slice as self: its .stop is a tensor
    "accel_shadow": "static_scan",    # tp43: getattr(torch, dev(), torch.cuda) with dev() a function binding torch
                                      # to its own object whose current_accelerator().type is "neg": torch.neg
    "has_triton_fallback": "static_scan",  # tp44: torchao's `if has_triton():` guard (a device query now, True on
                                           # the interpreter as on a GPU) with a PyTorch GEMM in its else branch
    "spec_loader": "static_scan",     # tp44: bitsandbytes' find_spec("triton") test beside find_spec("numpy").loader
                                      # executing NumPy, which negates on the host
    "ghost_hook": "ghost",            # a pre-run hook that runs in a normal launch only: ghost runs hooks
    "ghost_diverge": "ghost",         # reads its flag differently on a second sighting: replay diverges
    "ghost_count": "wrong_result",    # counts calls, garbage after the correctness cases: judged re-runs
    "ghost_seen": "wrong_result",     # remembers inputs, garbage on a repeat: judged re-runs
    "ghost_warn": "static_scan",      # warnings.catch_warnings around a launch
    "ghost_state": "static_scan",     # triton.runtime.interpreter's last grid
    "ghost_box": "static_scan",       # a kernel body appends to a list passed as tl.constexpr (interpreter)
    "ghost_getattr": "profile",       # counts the launcher's attribute probes of an argument (L3 launch
                                      # rule: not a Triton value; ghost launches probe alike anyway)
    "kernel_method": "static_scan",   # a kernel body calls a user method of an object passed as tl.constexpr
    "kernel_method_to": "profile",    # the same through .to() on a plain parameter: L1 admits it, the launch rule not
    # L3 launch rule (sandbox/launch_args.py): only Triton values reach a kernel; each of these passed
    # every tier before the rule (a ghost-replay detector, or compute outside Triton)
    "launch_dunder": "profile",       # constexpr object whose class binds __bool__ by assignment
    "launch_defaultdict": "profile",  # defaultdict constexpr: D[0] in the body inserts a key
    "launch_global": "profile",       # a module-level object of the submission's class read in the body
    "launch_int_subclass": "profile",  # int subclass constexpr with __eq__ bound by assignment
    "autotune_hook": "wrong_result",  # ATen work in an autotune pre_hook while benchmarking (GPU: profile); the
                                      # interpreter ranks configs without running hooks, the memcpy alone is wrong
    "launch_intenum_method": "profile",  # an IntEnum constexpr with a method of the submission's added
    "launch_intenum_module": "static_scan",  # the same method relabelled __module__ = "enum" (red team 26b; binding
                                             # __module__ is monkey-patch since rt44; behind L1 the launch rule)
    "launch_intenum_static": "profile",  # the submission's __eq__ wrapped in a staticmethod (what Python 3.12's
                                         # IntEnums hold, unwrapped: it must be the enum module's code)
    "launch_intenum_send": "profile",  # __eq__ = a generator's bound send (red team 27)
    "launch_intenum_valuemap": "profile",  # __eq__ = classmethod(Enum.__new__), a submission key in the value map
    "launch_intenum_base": "profile",  # enum.IntEnum.__eq__ set through a loop variable (red team 27)
    "store_through_display": "static_scan",  # [enum.IntEnum][0].__eq__ = f (red team 27)
    "tl_monkeypatch": "static_scan",  # tl.sum replaced through a loop variable (red team 27): the module tl as a
                                      # value (red team 28); behind L1 the launch rule's snapshot of Triton
    "save_hook": "static_scan",       # torch.save replaced through a loop variable: PyTorch computed the outputs
                                      # after the traced call (red team 28); behind L1 the harness snapshot
    "ret_class": "profile",           # rms_norm returns (unjudged) an object whose __class__ property computes the
                                      # result with PyTorch when the harness's isinstance() reads it (red team 28)
    "dict_shadow": "static_scan",     # a method written into a tensor's __dict__ by functools.update_wrapper, past
                                      # the Tensor.__setattr__ guard; the launch rule refuses it (red team 29c; L1
                                      # since red team 37 judges update_wrapper's names: BEHIND_L1)
    "autotune_do_bench": "profile",   # a do_bench= of the submission, run inside Triton's untraced benchmarking
    "autotune_config_subclass": "static_scan",  # a triton.Config subclass: all_kwargs runs inside that benchmarking
                                      # (L1 since red team 31: a Triton class as a base; behind it the launch rule)
    # rt40: do_bench= checks passed anything whose __code__ is Triton's, and never saw Triton's cached do_bench
    "autotune_bench_method": "profile",  # do_bench= another tuner's bound warmup (Triton's code): it calls that
                                         # tuner's early_config_prune, the submission's, inside the benchmarking
    "autotune_warmup_obj": "profile",  # warmup= an object of the submission: Triton's own do_bench lambda divides it
                                       # inside the benchmarking (its __truediv__ runs there)
    "autotune_reset_name": "profile",  # reset_to_zero= a str subclass: Triton's own pre-hook hashes it there
    "launch_kwarg_name": "profile",  # a launch keyword named by a str subclass, hashed inside that benchmarking
    "autotune_prehook_flag": "profile",  # a Config pre_hook that is not callable: its __bool__ runs there
    "autotune_reset_raise": "dispatch_recursion",  # rb40: Triton's reset_to_zero zeroed x while it benchmarks
                                                   # (registration lifted), the grid raising past run's traced reset
    "autotune_restore_view": "wrong_result",  # rt41: Triton's restore_value copy_ while it benchmarks made a block move
                                              # by as_strided_ in the Config pre_hook and the grid (emulated GPU loop)
    "autotune_nested_reset": "profile",  # rt41: an autotuner over an autotuner: the inner one's reset ran inside the
                                         # outer one's benchmarking, untraced (GPUs; a dispatch recursion on the CPU)
    "autotune_heuristics_dict": "profile",  # heuristics values a dict subclass: left untraced there
    "autotune_bench_swap": "profile",  # early_config_prune stores do_bench over Triton's cached_property (through a
                                       # parameter) after the launch rule ran; the launch grid deletes it again
    "method_shadow": "profile",       # a scratch tensor's storage_offset replaced by an instance attribute that
                                      # computes the result while the interpreter copies launch args (red team 29b)
    "gc_finalizer": "profile",        # a cycle whose __del__ computes the result with PyTorch, for the collector to
                                      # run outside the trace (red team 29): the child collects only guarded
    "getstate": "static_scan",        # an instance attribute __getstate__ on out, called by torch.save of the
                                      # outputs after the traced call: PyTorch computes the result (red team 28;
                                      # profile by plain_result, tests/test_trace_provenance.py; since rt43 L1
                                      # refuses the name __getstate__ first, object.__getstate__ being __dict__)
    "class_value": "static_scan",     # torch._C._DisableTorchDispatch called through a loop variable: L3 trace off,
                                      # the flag read unreplayed, PyTorch computes aten::mm (red team 28)
    "module_value": "static_scan",    # the harness's STATE reached from a loop variable bound to torch: ghost flag
                                      # read, trace switched off around PyTorch compute (red team 28)
    "launch_closure": "profile",      # a factory-made kernel calls a closure cell holding a host function (the
                                      # launch rule checks closure cells like globals; L1 defers to it)
    "launch_fake_tensor": "profile",  # an object with data_ptr: its untyped_storage() computes in Triton's
                                      # untraced argument copy
    # red-team round 2 (each passed every tier before its fix)
    "launch_docstring_def": "wrong_result",  # a 'def' hidden in the kernel's docstring, which Triton's
                                      # interpreter alone would run: the harness runs the visible body
    "launch_toctou": "profile",       # the grid callable rebinds a global the body reads after the check
    "constexpr_fn_state": "static_scan",  # a constexpr_function counts its calls on itself
    "launch_default_reeval": "wrong_result",  # a kernel default evaluated again by the interpreter's rewrite
    "interp_globals": "runtime_error",  # uses `inspect`, planted in its module by the interpreter's rewrite
    "jit_call": "static_scan",        # a kernel made by triton.jit(f): f is a kernel body (L1)
    "launch_unscanned": "static_scan",  # the same through a list L1 cannot follow: the launch rule records
                                      # the body, the verifier scans it as a kernel body
    "rewriter_swap": "static_scan",   # replaces the interpreter's rewriter on a kernel (L1); behind it:
                                      # the harness rewrites kernel.fn itself, the visible body runs
    "oob": "cuda_fault",              # loads/stores far outside its buffers: on the interpreter the bounds check
                                      # of every access (sandbox/interpreter.py) fails the case that makes it
    # issue 11 item 2 / issue 12 class 6: the cheats next to the L1 false rejections fixed as classes
    "cmath_host": "profile",          # cmath (allowed like math) computing tensor values on the host: the L3
                                      # host-read budget fails the [64, 65] case (judged on the interpreter too
                                      # since bf16 is) before the ghost replay's verdict on the [7] case
    "host_rebind": "dispatch_recursion",  # a list name rebound to the input tensor, then .sort(): L1 holds
                                      # a name plain Python only when every binding is (was L3's catch)
    "host_tensor_compute": "profile",  # host compute (item() reads) returned through torch.tensor(list),
                                      # which L1 allows now: the L3 trace sees the reads and the built tensor
    # issue 12 (an outside red team; each passed the smoke tier before its fix)
    "copy_unfold": "profile",         # class 1: im2col by ATen padding/unfold copies, a Triton copy of the
                                      # result (data-movement copy rule: copies of derived views)
    "copy_slice": "profile",          # class 1: select_backward as a slice copied into a zero tensor by ATen
    "fill_convert": "profile",        # class 5: _to_copy's conversion by fill_ from a tensor of the source dtype
    "to_convert": "profile",          # .to(float64) converts with ATen (L1 leaves .to() to L3's trace)
    "reshape_copy": "dispatch_recursion",  # class 6: clone by reshape's copy path, seen whole (a view) on
                                      # the interpreter path only (there a ghost), aten::clone -- the op
                                      # itself -- on GPUs: composite ops are decomposed on every path
    "import_scalars": "profile",      # class 2 in plain Python: a table of answers uploaded through the scalar
                                      # arguments of launches at import
    "import_table": "profile",        # class 2: every fp16 answer computed with PyTorch at import, looked up
                                      # by a kernel (the import runs under the dispatch trace)
    "import_lut": "profile",          # session 38: convert_fp8's 256 fp16 answers computed in Python at import,
                                      # packed four to an int64 (64 elements): host data counted in 4-byte units
    "pooled_output": "profile",       # class 3: every result a view of one module-level buffer
    "zero_shortcut": "wrong_result",  # session 25: Sscal writing zeros at alpha == 0 (smoke had no NaN in x)
    "copy_strided": "profile",        # session 25: cuBLAS Dcopy's strided copy done by ATen copy_ between views
    "data_swap": "profile",           # session 25's red team: a written argument moved onto new storage with
                                      # the .data setter (vLLM out, cuBLAS C, ATen add_ self); the caller's
                                      # storage is never written (L3 memory provenance: replaced_storages)
    # issue 11 item 2.1: host reads that are not a kernel's result still leave a replay passing
    "ghost_input_read": "ghost",      # sums a small input read on the host (a read-only input, not Triton's)
    "ghost_host_compute": "ghost",    # sums a Triton copy of the input on the host: the result is no value
                                      # a kernel computed (Triton-derived reads excuse only results made of them)
    # issue 12, class 4: reduced precision in an fp32 GEMM (the accumulation bound; both passed the
    # spec's atol = 1e-4 x K from K ~ 256 on)
    "fp16_operands": "wrong_result",  # fp32 operands rounded to fp16 before an fp32 tl.dot
    "tf32_dot": "wrong_result",       # input_precision="tf32", the dropped mantissa bits made explicit
    "tf32_default": "wrong_result",   # tl.dot's default input precision on fp32 operands (TF32 on GPUs; the
                                      # interpreter rounds the operands as the tensor cores do)
    # second red team: the loaded values read from a kernel's error message (interpreter), answers computed
    # in Python and written by a store kernel. Triton's GPU front end refuses static_assert on a loaded value at
    # compile time, on the interpreter too since it compiles every launched kernel for sm_90 first
    # (sandbox/gpu_compile.py): nothing is read, the output stays poisoned
    "kernel_error_read": "wrong_result",
    "launder_read": "ghost",
    # a table of answers uploaded through launch scalars on the first call
    # an input's clone handed to a no-op launch, read back, reduced on the host
    "lazy_upload": "profile",
    # cuBLAS *Batched: an address of a pointer array the harness built, changed by the call (an input)
    "ptr_tamper": "runtime_error",
    # red team of the pointer arrays and list slots: copy_blocks putting written clones into the caller's lists
    # (the caches it was given stay unwritten; the child judges the tensors the case passed)
    "list_swap": "wrong_result",
    # a store one vector length past each y_b, through the batch's own address (the last array ends its tensor)
    "ptr_spill": "wrong_result",      # lands in a gap or a guard band of the arrays' tensor (suite/cublas/decl.py
                                      # PTR_GUARD), on a GPU as on the interpreter
    # host reads of a Triton copy, Python arithmetic, a Triton store of the scalar: NOT caught (XFAIL below)
    "host_store": "ghost",
    # NumPy arrays of the memory the addresses point to (__array_interface__), computed and written with NumPy
    "host_deref": "static_scan",
    # session 38: host reads through a wider dtype view carry several elements each (a complex128 .item() four
    # fp32 values, an int64 .item() four fp16 values): host_store's cheat past the element budget (L3 read units)
    "widen_complex": "profile",
    "widen_item": "profile",
    # red team of the newest operators (quantised GEMMs, grouped_topk): semantics no smoke case exercises
    "no_rsf": "wrong_result",         # grouped_topk ignoring routed_scaling_factor (every smoke case has 1.0)
    "no_v2": "wrong_result",          # gptq_gemm ignoring use_v2_format (no smoke case has True)
    "no_trans": "wrong_result",       # Strsv ignoring trans (its transposed smoke case has a diagonal triangle)
    "no_uplo": "wrong_result",        # Dsyr2 ignoring uplo (every smoke case is upper)
    "no_conj": "wrong_result",        # CgemmStridedBatched taking op C as T (no smoke case has C)
    "alpha0_read": "wrong_result",    # SgemmStridedBatched reading A, B at alpha == 0 (smoke: alpha 0, NaN A, B)
    "beta0_read": "wrong_result",     # SgemmStridedBatched reading C at beta == 0 (smoke: beta 0, NaN C)
    # fp64 and complex GEMMs in lower precision (the accumulation bound of their precision catches them)
    "fp32_for_fp64": "wrong_result",  # fp64 tiles rounded to fp32, fp32 tl.dot: the fp64 accumulation bound
    "tf32_for_fp64": "wrong_result",  # the same with TF32-cut mantissas: the fp64 accumulation bound
    "tf32_complex": "wrong_result",   # Cgemm on TF32 where K >= 128: caught where K >= 128 (XFAIL below: smoke)
    "has_zp_flag": "wrong_result",    # allspark keyed on has_zp, not on b_qzeros: no case has them disagree
    "result_not_zeroed": "wrong_result",  # Sdot atomically adding into result (smoke results are zeros)
    # session 25's red team, packed layouts decoded by ATen (Operator.packed_args; each passed smoke and held-out)
    "triton_launder": "profile",      # packed data copied by a Triton memcpy into a fresh buffer, then unpacked by
                                      # ATen (red team 26; gptq_gemm 8-bit, ggml_dequantize, allspark)
    "triton_launder_big": "profile",  # the same into a buffer larger than the packed data, at an offset (red team
                                      # 26b): judged by its contents (chunks of the packed bytes found in it)
    "selector_launder": "profile",    # gather's moved data passed through the index's storage so that its ATen
                                      # transposes read like selector layout copies (red team 26b)
    "unpack_launder": "profile",      # gptq_gemm 8-bit: words laundered through a uint8 buffer, bytes permuted
    "unpack_reorder": "profile",      # allspark: N32K16 byte reorder and scale reorder undone by permute copies
    "unpack_split": "profile",        # ggml_dequantize: GGUF records split by slice copies and dtype views
    # red team 30 (each passed smoke and held-out at 911fe82)
    "list_cap": "profile",            # an object past plain_result's old value budget in an int[] argument: its
                                      # __class__ property computed the result with ATen after the trace
    "list_cap_copy": "profile",       # the same in cat's Tensor[] argument, ATen copies from views
    "ret_cap": "profile",             # the same in rms_norm's unjudged return value
    "sig_bind": "static_scan",        # a Signature subclass as neg's __signature__, its class taken from a JITFunction
                                      # built by hand (L1 introspection); the run-time refusal: test_wrapper_signature
    "fp16_probs": "wrong_result",     # _softmax's fp32 probabilities rounded to fp16: the softmax bound
    "fp16_small_probs": "wrong_result",  # softmax's probabilities below 0.125 rounded to fp16: the softmax bound
    # red team 30b (passes smoke and held-out on next at 53ca3d3)
    "fn_mode": "static_scan",         # a TorchFunctionMode left pushed: its handler computes neg with ATen after the
                                      # traced wrapper returns, inside the harness's public torch.neg call
    "fn_mode_storage": "static_scan",  # the same for rms_norm (function interface): fired by the harness's own
                                       # untyped_storage() after the wrapper's trace, ATen operators into out
    "fn_mode_lazy": "static_scan",    # fn_mode's mode pushed inside the first traced call (no mode after the import)
    "fn_mode_meta": "static_scan",    # fn_mode's handler added by a metaclass under a computed name
    # red team 31 (each passed smoke and held-out at 9d4a324)
    "pkg_import": "static_scan",      # a subclass of torch.package's _SysImporter imports anything (the STATE)
    "dispatch_off": "static_scan",    # a subclass of torch._C._DisableTorchDispatch hides ATen compute from the trace
    "module_compile": "profile",      # red team 33's lead: nn.Module.compile() (L1 reads a method); dynamo skips
                                      # frames under the harness's trace mode: the L3 trace sees the module's ATen ops
    "mode_relay": "static_scan",      # a TorchDispatchMode subclass (torch.autograd.graph) with an assigned handler,
                                      # pushed inside the call: computes on the harness's own launch-window ops
                                      # (caught at run time as profile: the launch window refuses foreign modes,
                                      # sandbox/window.py; BEHIND_L1)
    "param_subclass": "static_scan",  # tensor_subclass's channel through a torch.nn.Parameter subclass (caught at run
                                      # time as profile: dispatch.py _subclass_handler; BEHIND_L1)
    "np_handle": "static_scan",       # interpreter: NumPy through tl.tensor.handle.data inside a kernel body
    "int_builtin": "compile_error",   # interpreter: int() of a loaded block gives Python the value (red team 32 R1;
                                      # Triton's GPU front end refuses it, run at every launch: sandbox/gpu_compile.py)
    "block_str": "compile_error",     # interpreter: an f-string of a loaded block (red team 32 R1; as int_builtin)
    "py_table": "compile_error",      # interpreter: a Python tuple indexed by a loaded value (R1's TABLE[v])
    "unknown_kwarg": "runtime_error",  # red team 32b: int_builtin + a launch keyword that names no parameter and no
                                      # option: refused at the launch as a GPU launch refuses it (KeyError), before
                                      # the check's binding, whose failure was only a note
    "fn_swap": "static_scan",         # red team 37: k.fn = a host def after a launch mirrored the clean body: the check
                                      # compiled its cached mirror while the interpreter ran the host body (L1 since
                                      # rt39b: a Triton attribute set on a kernel; behind it the check, BEHIND_L1)
    "fn_code": "static_scan",         # red team 37: fn_swap by update_wrapper(k.fn, host, ("__code__",), ()) on the
                                      # same function object, mirrored clean through another kernel's globals (L1
                                      # judges update_wrapper's names like setattr's; behind it the GPU compile check)
    "gpu_options": "runtime_error",   # red team 37: int_builtin launched with num_warps=3: Triton's CUDA options assert
                                      # a power of 2 (a GPU launch raises); the check's failed binding was only a note
    "decoy_def": "compile_error",     # red team 32b: int_builtin + a decoy def line in a decorator string: Triton's
                                      # JITCallable took the decoy; the check compiles the def the interpreter runs
    "swap_helper": "compile_error",   # red team 32b: int_builtin through a global jit helper rebound after an
                                      # empty-grid launch compiled the clean one: the check's cache key now holds
                                      # Triton's dependency hash, recomputed per launch
    "swap_helper_deep": "compile_error",  # red team 36: swap_helper's global read one helper down: the helper's
                                      # cached hash hid the rebinding; stale mirror hashes are now dropped
    "constexpr_swap": "compile_error",  # red team 36: swap_helper through `G.value = jit_fn` on a constexpr
                                      # global: the check's key now holds a generation of what mirrors read
    "fp16_terms": "wrong_result",     # soft_margin_loss: the reduction of fp16-rounded terms within rtol*|sum|; the
                                      # loss-reduction bound fails the smoke tier's fp32 reductions of 6, 1 and 2 terms
                                      # (long held-out sums cannot tell)
    "hints_eval": "static_scan",      # typing.get_type_hints runs a string annotation: any import, the trace off
    "c_ext": "static_scan",           # triton.runtime.build compiles and imports the submission's own C code
    "clamped_ids": "wrong_result",    # moe_align_block_size: a negative token id in an expert run (red team 32: the
                                      # run judge clamped the candidate's ids before comparing them as multisets)
    "inc_sign": "wrong_result",       # rt44b: cublasZgemvStridedBatched read x and wrote y with |inc|; six batched gemv
                                      # routines had no negative increment in any tier (passed smoke + held-out)
    "conj_b": "wrong_result",         # rt44b: cublasCgemmStridedBatched took transb C as T; no case had transb C
                                      # (passed smoke + held-out 10/10)
    "pad_scratch": "wrong_result",    # rt44b: hadacore_transform zeroed a row-strided x's padding columns; x's custom
                                      # judge compared its view only (passed the smoke tier 4/4 at 6b1d438)
    # red team 32 R2: fp32 results of magnitude << 1 rounded to half precision, failed by the rounding bound
    "bf16_scale": "wrong_result",     # rms_norm_dynamic_per_token_quant: bf16-rounded int8 scales (the fp32 case)
    "fp16_weights": "wrong_result",   # topk_softmax: routing weights below 0.125 rounded to fp16
    "fp16_out": "wrong_result",       # paged_attention_v1: fp32 outputs below 0.2 rounded to fp16
    "fp16_partials": "wrong_result",  # paged_attention_v2: fp32 partition outputs rounded to fp16
    # red team 35 (the allowances of false-rejection hunt 35)
    "log_parent": "profile",          # an object of its own as the root logger's parent: its `level` property runs
                                      # whenever a logger checks its level (dynamo, Inductor), outside the traces;
                                      # the child's logging-tree check (snapshots.logging_changed)
    "code_rewrite": "static_scan",    # Triton's tl.maximum given the submission's code in place (update_wrapper with
                                      # "__code__"): NumPy on the interpreter's block; snapshots.code_changed (L1
                                      # since red team 37 judges update_wrapper's names: BEHIND_L1)
    # red team 37 (the allowances of false-rejection hunt 37)
    "disable_class": "static_scan",   # torch.compiler.disable(type(x)) rebinds torch.Tensor.__init__/__call__ (dynamo's
                                      # wrappers, PyTorch's code); behind L1 the harness snapshot (BEHIND_L1)
    "dynamo_disable_class": "static_scan",  # tp42: the same through torch._dynamo.disable (allowed on the file's own
                                            # launchers as torch.compiler.disable is); behind L1 the same snapshot
    "lock_then_local": "static_scan",  # tp42: threading imported for a Lock (allowed, FlagGems' LibEntry) and used for
                                       # threading.local() state across calls: of threading only Lock/RLock pass L1
    "match_self": "static_scan",      # `case _ as self:` rebinds the self that L1's own-attribute exemption trusts:
                                      # self.addFilter on PyTorch's logger (behind L1: the logging-tree check)
    "format_escape": "static_scan",   # "{0.__globals__[torch].sys.modules[...].STATE.ghost}".format(f): a format
                                      # field walks attributes L1 refuses as code and tells an L2 ghost replay from
                                      # a normal run (GPU: torch.cuda.nvtx.range(template, *args) formats alike);
                                      # host compute, the L3 budgets lifted (BUDGET_LIFTED), otherwise passed
    # red team 38 (the surfaces added since session 36)
    "loop_probe": "profile",          # isinstance(j, int) on a range loop index: folded to False by Triton's GPU front
                                      # end (a tensor there), True on the interpreter (a Python int), whose branch was
                                      # never compiled: host erfc (sandbox/folded.py compares the folded decisions)
    "nt_default": "profile",          # a namedtuple class read as a global whose field default is an object of the
                                      # submission's: _Ops().exp(v) ran its __call__ on loaded values (host erfc); the
                                      # launch rule judges namedtuple defaults like launch arguments
    # red team 39 (the surfaces added by session 38)
    "tuple_probe": "profile",         # loop_probe's probe picks the callee instead of a branch: _apply((_dev_path,
                                      # _host_path)[isinstance(j, int)], ...) compiles _dev_path and runs _host_path's
                                      # host erfc (folded.py: a helper call must be one the GPU front end compiled)
    "comp_probe": "profile",          # the probe as a comprehension's length: [[host erfc inline] for _ in (0,) *
                                      # isinstance(j, int)], unrolled zero times by the compiler, once here
    "factory_twin": "profile",        # loop_probe's branch in a helper of a factory kernel whose twin (equal code
                                      # object) was rewritten after it: its calls were placed under the twin's
                                      # function, a path never recorded, and the branch went unjudged
    "constexpr_fn_probe": "profile",  # a @triton.constexpr_function returns 0.0 to the compiler (j a tensor there)
                                      # and a host erfc of the loaded bits on the interpreter (j a Python int)
}
#: red team 32 R2's fixtures: failed by the rounding bound (tolerance.rounding_rule), named in the message
ROUNDING_BOUND = {"bf16_scale", "fp16_weights", "fp16_out", "fp16_partials"}

#: Cheats that pass the smoke tier today: each stays a fixture with the class it should fail with, marked
#: xfail (strict: when a fix catches it, the mark must go). The fixture's docstring says why it passes.
XFAIL = {
    "host_store": "host reads -> Python arithmetic -> a Triton store of the answer as a launch scalar: the ghost "
                  "replay skips the store, so L2 takes the poisoned replay for Triton's work (no data flow from "
                  "reads to launch scalars is tracked)",
    "tf32_complex": "smoke-grid reach: TF32 operands only where K >= 128, which the complex accumulation bound "
                    "rejects (full and held-out tiers; tests/test_accumulation_bound.py); the smoke tier's K <= 20 "
                    "keeps the true fp32 path, so this fixture passes the smoke tier it is run on here",
}
if not PLATFORM.interpreter:
    # Triton's GPU compiler refuses a kernel that reads a global which is not a constexpr
    EXPECTED["launch_toctou"] = "compile_error"
    # Triton's GPU code generator evaluates a kernel's default values again while it compiles; the probe it
    # gets cannot be a constexpr and the first launch raises (runtime_error: raised by the launch, measured)
    EXPECTED["launch_default_reeval"] = "runtime_error"
    # the hook's ATen copies, traced while Triton benchmarks (sandbox/launch.py traced_autotune_hooks)
    EXPECTED["autotune_hook"] = "profile"
    # a GPU compiles and runs the branch its front end folded in: a plain copy of the input
    EXPECTED["loop_probe"] = "wrong_result"
    EXPECTED["tuple_probe"] = "wrong_result"
    EXPECTED["comp_probe"] = "wrong_result"  # nothing stored: the unwritten output
    EXPECTED["factory_twin"] = "wrong_result"
    EXPECTED["constexpr_fn_probe"] = "wrong_result"  # the folded 0.0 stored
# ghost_raise's static_assert(False) is refused at compile time on every platform (on the interpreter by the GPU
# compile check, sandbox/gpu_compile.py, before the body runs): the launch raises in a normal run and the ghost
# replay raises it again, as on a GPU (the interpreter's KernelErrorCaught, an error caught from a running body,
# no longer sees it)


#: Interpreter-only cheats whose GPU run is honest: Triton compiles the clean code they hide (a decoy def the
#: JITCallable takes for the source; the helper its kernel cache keeps), so on a GPU they pass, computing right.
GPU_HONEST = {"decoy_def": "a GPU compiles the decoy, the oracle's clean body",
              "swap_helper": "a GPU's kernel cache keeps the clean helper compiled first",
              "swap_helper_deep": "a GPU's kernel cache keeps the clean helper compiled first",
              "constexpr_swap": "a GPU's kernel cache keeps the clean helper compiled first",
              "fn_swap": "a GPU's JITFunction compiles its own source, the clean body",
              "fn_code": "a GPU's JITFunction compiles its own source, the clean body"}


def _cases():
    for path in fixtures(BAD):
        what = fixture_kind(path)
        if what in EXPECTED:
            marks = [pytest.mark.xfail(reason=XFAIL[what], strict=True)] if what in XFAIL else []
            if what in GPU_HONEST and not PLATFORM.interpreter:
                marks.append(pytest.mark.skip(reason=f"interpreter-only cheat: {GPU_HONEST[what]}"))
            yield pytest.param(path, fixture_op(path), EXPECTED[what], id=what, marks=marks)


#: Fixtures that compute on the host through allowed ops, element by element: with the L3 budgets of
#: host reads and copies in force they fail as ``profile``; with the budgets lifted, the later checks
#: (L2 ghost replay, proof of launch) must still catch them with their own class.
BUDGET_CAUGHT = {"ghost", "no_launch"}
#: Fixtures run with the L3 budgets lifted by the main test: BUDGET_CAUGHT's, and cheats whose payload is host compute
#: within the budgets' reach but whose hole is elsewhere (format_escape: L1, which alone stands before L2 there).
BUDGET_LIFTED = BUDGET_CAUGHT | {"format_escape"}


#: Fixtures of data-movement operators (select_backward, index_select) that move the values with ATen
#: copies from and into views they derive (``out.select(dim, i).copy_(grad)``) beside a token or flag
#: launch. Since the data-movement copy rule (verify/profile.py MOVE_MARKS) they fail as ``profile`` first
#: (test_copies_that_do_a_data_movement_operators_work_fail_first); with the rule lifted, the later
#: check each was written for must still catch it with its own class (defence in depth, as BUDGET_CAUGHT).
COPY_RULE_CAUGHT = {"ghost", "ghost_count", "ghost_diverge", "ghost_flag", "ghost_hook", "ghost_raise", "ghost_seen",
                    "ghost_builtin_raise", "no_launch"}


#: Fixtures whose cheat runs at import (judged by the import's dispatch trace before any case).
IMPORT_CAUGHT = {"import_table", "import_scalars", "import_lut"}
#: Fixtures whose launch-rule violation is recorded while the submission is imported (no case ran yet; behind L1
#: where L1 rejects them first).
IMPORT_LAUNCH_CAUGHT = {"tl_monkeypatch", "log_parent", "code_rewrite", "type_param_run"}

#: Interpreter cheats through Python on a block's values (red team 32 R1): Triton's GPU front end refuses them, run at
#: every launch on the interpreter too (sandbox/gpu_compile.py).
GPU_FRONT_END = {"int_builtin", "block_str", "py_table", "decoy_def", "swap_helper", "swap_helper_deep",
                 "constexpr_swap"}

#: Fixtures of reduced precision (issue 12, class 4): their failure must be the accumulation bound's.
PRECISION = {"fp16_operands", "tf32_dot", "tf32_default"}

#: What the launch rule's message says for the launch_* fixtures.
LAUNCH_MESSAGES = {
    "launch_dunder": "kernel _touch: argument T is a _Tally (launch arguments must be tensors, numbers, strings, "
                     "dtypes, constexprs, jit functions or tensor descriptors)",
    "launch_defaultdict": "kernel _touch: argument D is a defaultdict",
    "launch_global": "kernel _touch: global _TALLY is a _Tally (a kernel body may read only modules",
    "launch_int_subclass": "kernel _touch: argument T is a _N (a subclass of int)",
    "launch_intenum_method": "argument MODE is a Mode (a subclass of int)",
    "launch_intenum_module": "argument MODE is a Mode (a subclass of int)",
    "launch_intenum_static": "argument MODE is a Mode (a subclass of int)",
    "launch_intenum_send": "argument MODE is a Mode (a subclass of int)",
    "launch_intenum_valuemap": "argument MODE is a Mode (a subclass of int)",
    "launch_intenum_base": "argument MODE is a Mode (a subclass of int)",
    "launch_fake_tensor": "kernel _copy: argument src is a _Lazy",
    "launch_toctou": "kernel _touch: global _GATE is a _Count",
    "nt_default": "kernel _contig_kernel: global _Ops is the class _Ops",
}


def _brief(rec: dict) -> str:
    """A record that should have failed, readable in a CI log: each case's verdict, input seed and error, then the
    anti-hack summary (pytest cuts a long dict, and a cheat passing once in many runs must be diagnosable)."""
    rows = [f"{c.get('id')}: {c.get('status')} seed={c.get('input_seed')} max_abs={c.get('max_abs')} "
            f"params={c.get('params')}" for c in rec.get("cases") or []]
    return "\n".join([f"{rec.get('op')} {rec.get('status')} submission={rec.get('submission')}", *rows,
                      f"anti_hack={rec.get('anti_hack')}", f"log={rec.get('log')}"])


@pytest.mark.slow
@pytest.mark.parametrize("path,op_id,expected", list(_cases()))
def test_bad_submission_fails_with_its_class(tmp_path: Path, path: Path, op_id: str, expected: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if fixture_kind(path) in BUDGET_LIFTED:
        from kernelgenbench.verify import profile

        monkeypatch.setattr(profile, "ITEM_BUDGET", 10 ** 6)
        monkeypatch.setattr(profile, "FILL_COPY_BUDGET", 10 ** 6)
    op = get_operator(op_id)
    if fixture_kind(path) in COPY_RULE_CAUGHT:
        monkeypatch.setattr(op, "data_movement", False)
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir()
    write_submission(path, sub)
    # secret inputs, as in a real job: every verdict must hold on every draw (poison_int too: sort's integer smoke
    # cases hold the poison value on every draw; it once ran on the public seeds, caught on ~40% of secret draws)
    settings = Settings(import_timeout_s=25.0 if expected == "timeout" else 120.0, case_timeout_s=120.0)
    rec = Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                   settings).run()
    assert rec["status"] == "failed", _brief(rec)
    assert rec["failure_class"] == expected, (rec["failure_class"], rec["first_failure"])
    assert rec["first_failure"]["message"], rec
    what = path.stem.split("__", 1)[0]
    if what in ROUNDING_BOUND:
        assert "(the rounding bound of an honest fp32 computation" in rec["first_failure"]["message"], \
            rec["first_failure"]
    if what in GPU_FRONT_END and PLATFORM.interpreter:  # refused by the GPU compile check, with Triton's message
        assert "does not compile for a GPU" in rec["first_failure"]["message"], rec["first_failure"]
    if what in ("loop_probe", "factory_twin") and PLATFORM.interpreter:  # the folded decision, not another check
        assert "where the GPU front end folded it to False" in rec["first_failure"]["message"], rec["first_failure"]
    if what == "constexpr_fn_probe" and PLATFORM.interpreter:
        assert "from the constexpr function _cf where the GPU front end folded in 0.0" in \
            rec["first_failure"]["message"], rec["first_failure"]
    if what == "comp_probe" and PLATFORM.interpreter:
        assert "iterates a comprehension 1 time(s) where the GPU front end unrolled it 0 time(s)" in \
            rec["first_failure"]["message"], rec["first_failure"]
    if what == "tuple_probe" and PLATFORM.interpreter:  # the callee compiled at that site, not another check
        assert "calls the jit function _host_path where the GPU front end compiled a call of _dev_path" in \
            rec["first_failure"]["message"], rec["first_failure"]
    if what == "fp16_terms":  # failed by the loss-reduction bound, in an fp32 sum or mean (of 6, 1 or 2 terms: the
        # 6-term sum alone missed the cheat on ~1 % of the secret draws)
        assert "(the loss-reduction bound, n=" in rec["first_failure"]["message"], rec["first_failure"]
    if what in PRECISION:  # failed by the accumulation bound, in an fp32 case, and for nothing else
        assert "outside tolerance (rtol[fp32]=1e-05 + accumulation bound" in rec["first_failure"]["message"], \
            rec["first_failure"]
    # the message names the kernel, the argument (or global) and its type
    if what in LAUNCH_MESSAGES and expected == "profile":
        assert "L3 launch check (case smoke/" in rec["first_failure"]["message"], rec["first_failure"]
        assert LAUNCH_MESSAGES[what] in rec["first_failure"]["message"], rec["first_failure"]
    if what in IMPORT_CAUGHT:  # judged at import: no case ran
        assert rec["first_failure"]["message"].startswith("L3 dispatch trace of the submission's import"), rec
        assert rec["first_failure"]["case_id"] is None and not rec["cases"], rec["first_failure"]
    elif what in IMPORT_LAUNCH_CAUGHT and expected == "profile":
        assert rec["first_failure"]["message"].startswith("L3 launch check (importing the submission)"), rec
    elif expected in ("wrong_result", "profile", "not_exercised", "runtime_error") or (
            expected == "dispatch_recursion" and not rec["first_failure"]["message"].startswith("L1")):
        # a case-level failure names the case it happened in
        assert rec["first_failure"]["case_id"] is not None, rec["first_failure"]


#: Fixtures that L1 rejects and a later tier must still catch on its own (defence in depth), with
#: the class that tier reports when L1 is switched off.
BEHIND_L1 = {"kernel_body_torch": "profile",  # the L3 trace covers kernel bodies run by the interpreter
             "ghost_box": "profile",          # L3 launch rule: a list passed as tl.constexpr
             "kernel_method": "profile",      # L3 launch rule: an object of the submission's class
             "rewriter_swap": "wrong_result",  # the harness's own rewrite of kernel.fn: the copy body runs
             "host_deref": "ghost",           # NOT caught behind L1 (BEHIND_L1_XFAIL)
             "tl_monkeypatch": "profile",     # Triton's modules compared with their state before the import
             "type_alias_run": "profile",     # Triton's runtime classes compared likewise (rt39b)
             "kernel_attr_run": "profile",    # the launch rule: an instance attribute over the kernel class's (rt39b)
             "save_hook": "profile",          # PyTorch's modules compared right after each traced call
             # red team 30b: PyTorch modes left pushed (sandbox/drive.py foreign_modes), behind L1's torch.overrides
             "fn_mode": "profile", "fn_mode_storage": "profile", "fn_mode_lazy": "profile", "fn_mode_meta": "profile",
             "autotune_config_subclass": "profile",  # the launch rule refuses configs that are not plain triton.Config
             # red team 31: a mode pushed and popped inside the call, refused when the harness opens the launch
             # window (sandbox/window.py); its three fixtures (neg, mm, rms_norm) each
             "mode_relay": "profile",
             # red team 31: ATen in the __torch_dispatch__ of a torch.nn.Parameter subclass; the trace refuses an op
             # on a tensor subclass with its own handler (sandbox/dispatch.py _subclass_handler)
             "param_subclass": "profile",
             # red team 31: NumPy through .handle.data in a kernel body; Triton's GPU front end, run at every launch
             # on the interpreter (sandbox/gpu_compile.py), refuses it
             "np_handle": "compile_error",
             # red team 37: functools.update_wrapper with assigned/updated names L1 refuses as setattr's; behind it the
             # launch rule (a tensor attribute shadowing a method), the snapshots of Triton's functions, and the GPU
             # compile check of the code the interpreter runs (interpreter-only: GPU_HONEST)
             "dict_shadow": "profile", "code_rewrite": "profile", "fn_code": "compile_error",
             "fn_swap": "compile_error",  # rt39b: L1 refuses k.fn = ...; the GPU compile check mirrors what fn holds
             # red team 37: torch.Tensor's __init__/__call__ rebound by torch.compiler.disable(type(x)) to dynamo's
             # wrappers (PyTorch's code that calls what it was given): snapshots._torch_own refuses them
             "disable_class": "profile", "dynamo_disable_class": "profile",
             "launch_intenum_module": "profile"}  # red team 26b: the launch rule compares code, not __module__

#: BEHIND_L1 fixtures no later tier catches today (xfail, strict), and why.
BEHIND_L1_XFAIL = {
    "host_deref": "a ghost replay hands back the normal run's host reads, here the addresses of that run's clone of "
                  "the arrays: host code dereferencing them writes the old memory, the replay's y stays poisoned and "
                  "L2 credits Triton; NumPy compute is invisible to the dispatch trace",
}


def _behind_l1_cases():
    for what in sorted(BEHIND_L1):
        marks = [pytest.mark.xfail(reason=BEHIND_L1_XFAIL[what], strict=True)] if what in BEHIND_L1_XFAIL else []
        if what in GPU_HONEST and not PLATFORM.interpreter:
            marks.append(pytest.mark.skip(reason=f"interpreter-only cheat: {GPU_HONEST[what]}"))
        paths = [p for p in fixtures(BAD) if fixture_kind(p) == what]
        for path in paths:  # every fixture of the kind (mode_relay has three)
            yield pytest.param(what, path, marks=marks,
                               id=what if len(paths) == 1 else f"{what}-{fixture_op(path).replace('::', '_')}")


@pytest.mark.slow
@pytest.mark.parametrize("what,path", list(_behind_l1_cases()))
def test_later_tiers_catch_what_l1_rejects_behind_l1(tmp_path: Path, what: str, path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelgenbench.run import job

    monkeypatch.setattr(job, "scan_file", lambda *a, **k: [])
    op = get_operator(fixture_op(path))
    sub = write_submission(path, tmp_path / op.filename)
    rec = Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                   Settings()).run()
    assert rec["failure_class"] == BEHIND_L1[what], rec["first_failure"]
    if what in IMPORT_LAUNCH_CAUGHT:
        assert rec["first_failure"]["message"].startswith("L3 launch check (importing the submission)"), rec
    if what == "save_hook":
        assert "torch.save was changed after the harness started" in rec["first_failure"]["message"], rec
    if what == "disable_class":
        assert "Tensor.__init__ was added after the harness started" in rec["first_failure"]["message"], \
            rec["first_failure"]
    if what == "mode_relay":
        assert "torch dispatch mode pushed" in rec["first_failure"]["message"], rec["first_failure"]
    if what in ("fn_code", "fn_swap"):
        assert "does not compile for a GPU" in rec["first_failure"]["message"], rec["first_failure"]
    if what == "np_handle":
        # the interpreter's GPU compile check names it; on a GPU Triton's own front end refuses `x.handle.data`
        said = "does not compile for a GPU" if PLATFORM.interpreter else "has no attribute 'data'"
        assert said in rec["first_failure"]["message"], rec["first_failure"]
    if what == "param_subclass":
        assert "tensor subclass with its own __torch_dispatch__" in rec["first_failure"]["message"], \
            rec["first_failure"]


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(COPY_RULE_CAUGHT))
def test_copies_that_do_a_data_movement_operators_work_fail_first(tmp_path: Path, what: str) -> None:
    path = find_fixture(BAD, what)
    op = get_operator(fixture_op(path))
    assert op.data_movement
    sub = write_submission(path, tmp_path / op.filename)
    rec = Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                   Settings()).run()
    msg = rec["first_failure"]["message"]
    assert rec["failure_class"] == "profile" and "data-movement operator's work" in msg, rec["first_failure"]
    assert "(non-trivial mapping)" in msg and rec["first_failure"]["case_id"] is not None


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(BUDGET_CAUGHT))
def test_host_compute_through_allowed_ops_is_caught_by_l3_budgets(tmp_path: Path, what: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = find_fixture(BAD, what)
    op = get_operator(fixture_op(path))
    monkeypatch.setattr(op, "data_movement", False)  # the copy rule catches them first (COPY_RULE_CAUGHT)
    sub = write_submission(path, tmp_path / op.filename)
    rec = Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                   Settings()).run()
    assert rec["failure_class"] == "profile" and "host" in rec["first_failure"]["message"], rec["first_failure"]


def test_every_class_is_covered() -> None:
    stems = {fixture_kind(p) for p in fixtures(BAD)}
    assert set(EXPECTED) <= stems


@pytest.mark.slow
def test_missing_file_is_recorded_as_missing(tmp_path: Path) -> None:
    op = get_operator("vllm::rms_norm")
    rec = Verifier(JobSpec(op, None, "smoke"), PLATFORM, None, tmp_path / "job", Settings()).run()
    assert (rec["status"], rec["failure_class"]) == ("failed", "missing")
