"""CHEAT (red team 35): vllm::rms_norm that hangs an object of its own above the root logger, so that its code runs
whenever PyTorch, Triton or the harness logs, outside the traced calls.

L1 admits ``import logging``, ``logging.getLogger`` and the log calls since false-rejection hunt 35 and refuses the
callback attributes it sees (``addFilter``, ``handlers``, ``manager``, ...), but a logger is a mutable object: this
file sets ``logging.getLogger().parent = _Hook()`` (and the root's level to NOTSET), and ``_Hook.level`` is a
property. Every logger whose level is NOTSET (most of PyTorch's) walks its parents in ``getEffectiveLevel`` when it
decides whether to log, reaching ``_Hook.level``: on a GPU dynamo and Inductor log while the harness compiles this
operator's native baseline (the prepare command, outside every trace), and the property runs there with whatever the
submission keeps (here it only counts). Its kernels are the oracle's, so the job passed every tier before the fix.
Caught by the child's logging-tree check (sandbox/snapshots.py ``logging_changed``, with the harness snapshot after
the import and every traced call): a logger may hold only logging's and PyTorch's own objects; fails as ``profile``.
The rest is the oracle (solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("""\
import triton.language as tl
""", """\
import triton.language as tl
import logging

_RUNS = [0]


class _Hook:
    parent = None
    propagate = False
    disabled = False
    handlers = ()

    @property
    def level(self):
        _RUNS[0] += 1  # outside the traced calls: any PyTorch work here would go unseen
        return 0


_root = logging.getLogger()
_root.setLevel(logging.NOTSET)
_root.parent = _Hook()
"""),
]
