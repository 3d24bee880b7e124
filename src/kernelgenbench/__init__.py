"""KernelGenBench: a benchmark and evaluation harness for Triton kernels written by LLMs and coding agents.

The library entry points (the ``kgb`` command is a thin layer over them):

* :func:`evaluate` — evaluate a directory of submissions into a run directory (resumable);
* :func:`evaluate_file` — judge one submission file for one operator, no run directory;
* :class:`Run` — what :func:`evaluate` returns (records, summary, path).

They are imported on first use, so ``import kernelgenbench`` stays cheap (no torch).
"""
from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Run", "evaluate", "evaluate_file", "EvaluationError", "EvaluationInterrupted", "Settings", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("Run", "evaluate", "evaluate_file", "EvaluationError", "EvaluationInterrupted"):
        from .run import evaluate as _evaluate

        return getattr(_evaluate, name)
    if name == "Settings":
        from .run.job import Settings

        return Settings
    raise AttributeError(f"module 'kernelgenbench' has no attribute {name!r}")
