"""L1 static scan: reject submissions whose source computes outside Triton or tampers with the harness.

This is the first anti-cheat tier (``shared/DESIGN.md``, bullet "L1 static scan"; upstream's
equivalent is described in ``shared/spec/aten.md`` §4 item 6). It reads the submission's source with
:mod:`ast` and never imports or runs it. It rejects:

* calls that compute with PyTorch instead of Triton: ``torch.X(...)`` outside an allowlist of
  allocation, view, metadata and device-query functions, ``torch.ops.*``, ``torch.nn.functional.*``,
  ``torch.linalg/fft/special.*``, and tensor *methods* judged by name (``x.sum()``, ``x.to(...)``);
* calls of the op the submission replaces (dispatch recursion, ``aten.md`` §4 item 5);
* the compiler stack (``torch.compile``, dynamo, inductor, TorchScript), foreign compute (``ctypes``,
  CuPy, vLLM, C++ extensions), host computation (NumPy and friends);
* library classes as bases (of PyTorch and Triton only ``torch.nn.Module``, ``torch.autograd.Function`` and
  exceptions), tensor subclasses, dispatch handlers however bound, Triton outside its language and a few helpers,
  evaluated annotations (red team 31);
* ``exec``/``eval``, dynamic attribute access and dynamic imports, introspection, monkey-patching,
  Python side effects and non-Triton calls in kernel bodies, file/network/process/thread access,
  extra streams and timers.

What it cannot see (aliases built at run time, ``a @ b`` and other operators on tensors, indexing that
computes) is left to the dynamic tiers L2 (ghost replay) and L3 (dispatch trace), which see through
them. The scan is deliberately conservative about *names*: a method call is judged by its name alone,
because the receiver's type is unknown statically, unless the receiver is provably a plain Python value
(see "Host values" in :mod:`.scope`: ``s = set(); s.add(v)`` passes, ``t.add(v)`` of a parameter does not).

Layout
------
* :mod:`.api`: the entry points (:func:`scan_source`, :func:`scan_file`, :func:`scan_kernel_body`,
  :func:`kernel_body_defs`) and the data shapes they return;
* :mod:`.findings`: :class:`Finding`, and how a rejection ranks and reports findings
  (:func:`describe_findings`, :func:`findings_record`);
* :mod:`.policy`: the rules and their sources, the allow/deny tables and the texts that say why (what a
  maintainer edits), and why L1 does not judge state kept across calls;
* :mod:`.scope`: scope analysis, name resolution and the host-type inference ("Host values");
* :mod:`.scanner`: the AST visitor that reports findings, and the scope of the rules (kernel bodies, the
  ``__main__`` guard).
"""
from __future__ import annotations

from .api import kernel_body_defs, scan_file, scan_kernel_body, scan_source
from .findings import (
                       MESSAGE_FINDINGS_MAX,
                       RECORD_FINDINGS_MAX,
                       Finding,
                       describe_findings,
                       findings_record,
                       rank_findings,
)
from .policy import (
                       ATTR_BUILTINS,
                       COMPLETION_POLLS,
                       CONSTEXPR_FN_BUILTINS,
                       CONSTEXPR_FN_DECORATORS,
                       CONSTEXPR_FN_METHODS,
                       EXEC_BUILTINS,
                       IMPORT_ALLOWED,
                       IMPORT_ORDER,
                       IMPORT_RULES,
                       INTROSPECTION_ATTRS,
                       JIT_DECORATORS,
                       KERNEL_ATTRS_REFUSED,
                       KERNEL_BUILTINS,
                       KERNEL_CALLABLE_ARGS,
                       KERNEL_TRITON_HELPERS,
                       LOGGING_CALLBACK_ATTRS,
                       MUTATING_METHODS,
                       PY_METHODS_HARMLESS,
                       RAW_STORAGE_ATTRS,
                       RULE_RELEVANCE,
                       RULES,
                       STRING_ATTR_TOOLS,
                       SUBCLASSABLE_CLASSES,
                       TENSOR_CONVERSION_METHODS,
                       TENSOR_COPY_METHODS,
                       TENSOR_FROM_HOST_DATA_METHODS,
                       TENSOR_METHODS_ALLOWED,
                       TORCH_ALLOWED,
                       TORCH_COPY_ALLOWED,
                       TORCH_FROM_HOST_DATA,
                       TORCH_PATH_ALLOWED,
                       TORCH_PATH_RULES,
                       TRITON_ALLOWED,
                       TRITON_ALLOWED_PREFIXES,
)
from .scope import (
                       FROZEN_DATA,
                       HOST,
                       HOST_COMBINING_BUILTINS,
                       HOST_CONTAINER_BUILTINS,
                       HOST_DATA,
                       HOST_DATA_FUNCTION_ROOTS,
                       HOST_DATA_FUNCTIONS,
                       HOST_FACTORIES,
                       HOST_METADATA_ATTRS,
                       HOST_METADATA_METHODS,
                       HOST_SCALAR_BUILTINS,
                       TORCH_HOST_DATA_CALLS,
                       UNKNOWN,
)
from .stdlib_rules import CONTEXTLIB_ALLOWED, LOGGING_ALLOWED, TYPING_EVALUATORS, WARNINGS_ALLOWED

__all__ = [
    "scan_source", "scan_file", "scan_kernel_body", "kernel_body_defs", "Finding", "MESSAGE_FINDINGS_MAX",
    "RECORD_FINDINGS_MAX", "rank_findings", "describe_findings", "findings_record", "RULES", "RULE_RELEVANCE",
    "TORCH_ALLOWED", "TORCH_FROM_HOST_DATA", "TENSOR_FROM_HOST_DATA_METHODS", "TORCH_COPY_ALLOWED",
    "TENSOR_METHODS_ALLOWED", "TENSOR_COPY_METHODS", "TENSOR_CONVERSION_METHODS", "RAW_STORAGE_ATTRS",
    "PY_METHODS_HARMLESS",
    "INTROSPECTION_ATTRS", "WARNINGS_ALLOWED", "LOGGING_ALLOWED", "LOGGING_CALLBACK_ATTRS",
    "CONTEXTLIB_ALLOWED", "COMPLETION_POLLS", "EXEC_BUILTINS", "ATTR_BUILTINS", "IMPORT_ORDER",
    "IMPORT_ALLOWED", "IMPORT_RULES", "STRING_ATTR_TOOLS", "TORCH_PATH_ALLOWED", "TORCH_PATH_RULES",
    "CONSTEXPR_FN_DECORATORS",
    "JIT_DECORATORS", "CONSTEXPR_FN_BUILTINS", "CONSTEXPR_FN_METHODS", "MUTATING_METHODS",
    "KERNEL_BUILTINS", "KERNEL_TRITON_HELPERS", "KERNEL_CALLABLE_ARGS", "UNKNOWN", "HOST", "HOST_DATA",
    "FROZEN_DATA", "HOST_SCALAR_BUILTINS", "HOST_CONTAINER_BUILTINS", "HOST_COMBINING_BUILTINS", "HOST_FACTORIES",
    "HOST_DATA_FUNCTION_ROOTS", "HOST_DATA_FUNCTIONS", "TORCH_HOST_DATA_CALLS", "HOST_METADATA_ATTRS",
    "HOST_METADATA_METHODS", "SUBCLASSABLE_CLASSES", "TRITON_ALLOWED", "TRITON_ALLOWED_PREFIXES", "TYPING_EVALUATORS",
    "KERNEL_ATTRS_REFUSED",
]
