"""Triton's own ``reset_to_zero=``/``restore_value=`` hooks while it benchmarks an autotuned kernel (red team rb40).

Inside ``Autotuner._bench`` the harness's launch window is open and the candidate's ATen registration is lifted
(:class:`.window.registration_lifted`, b075737): Triton's own hooks run ``zero_``, ``clone`` and ``copy_`` there with
PyTorch's kernels, untraced. Triton's hooks look their tensors up in ``full_nargs``, a dict ``_bench`` makes once per
config and hands to the candidate's own ``triton.Config(pre_hook=)`` (traced, but a dict write is no ATen op), and keep
the restore copies on the tuner (``tuner.restore_copies``), which the candidate's launch grid can reach. A config
pre_hook that put ``src`` under the restored name and a launch grid that put ``dst`` back made Triton's restore compute
``dst.copy_(src)`` untraced (a whole ``aten::copy_`` task, a dtype conversion, any broadcast copy), with a kernel that
did nothing. :func:`pinned` runs Triton's hooks as Triton defines them, on the tensors the benchmarked launch itself
receives (read when ``_bench`` starts) and with the copies kept here.

The restore writes through a view of the tensor made when it is cloned (rt41): the candidate's config pre_hook and
launch grid (traced) run between Triton's clone and its restore and may change a launch tensor's metadata in place
(``as_strided_``, a view op L3 allows); a grid that moved the tensor's view from the cloned block to another made the
restore copy one block over another, untraced (vllm::copy_blocks with a kernel that did nothing, on the emulated GPU
loop). Through the fixed view the restore puts the clone back where it was taken, as Triton means it to.

Triton's reset (``zero_``) inside the window was the candidate's result for ``aten::zero_`` (and a factory such as
``zeros_like``, whose output the candidate allocates): its traced counterpart after the benchmark
(``Autotuner.run``'s ``pre_hook(reset_only=True)``, a dispatch recursion there) is skipped by a launch that raises
while Triton benchmarks, the candidate catching the error. The reset now runs traced, as the candidate's own hooks do
(:func:`.launch.traced_autotune_hooks`), and is charged once per candidate call whatever the number of configs (one
``zero_`` per tensor, as the reset Triton's run charges anyway after the benchmark).
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import torch

from .state import STATE

#: Trace keys (base names) that count elements against a per-call budget (verify/profile.py: host reads, host data,
#: random draws): summed over every call of a hook while Triton benchmarks, never folded into one call's count.
_SUMMED = frozenset({"_local_scalar_dense", "item", "is_nonzero", "host_read", "host_read_widened", "host_data",
                     "random_draw"})


def summed(key: str) -> bool:
    """Whether trace key ``key`` (``"aten::host_data (...)"``) is one :func:`.launch.traced_autotune_hooks` sums over
    a hook's calls rather than counting the most one call ran (red team rb40: a Config pre_hook reading and writing four
    elements per benchmarked call computed a 72-element aten::neg on the host, charged four host-data elements)."""
    return key.split("::", 1)[-1].split(" ", 1)[0].split(".", 1)[0] in _SUMMED


#: The trace counter of the candidate call in progress and the op counts Triton's reset was charged in it.
_RESET_CHARGED: list[Any] = [None, {}]


def _charged(run: Callable[[], None], outer: int) -> None:
    """Run ``run`` (Triton's reset) traced, at the launch depth ``outer`` of the candidate's code; its ops counted once
    per candidate call: each key as often as the most one run of it ran it in this call (the counter's identity, held
    here, tells the calls apart)."""
    counter = STATE._call_trace if STATE._call_trace is not None else STATE.trace
    if _RESET_CHARGED[0] is not counter:
        _RESET_CHARGED[:] = [counter, {}]
    charged: dict[str, int] = _RESET_CHARGED[1]
    before = dict(counter) if counter is not None else {}
    saved = STATE.inside_launch
    STATE.inside_launch = outer
    try:
        run()
    finally:
        STATE.inside_launch = saved
        for key in list(counter) if counter is not None else []:
            d = counter[key] - before.get(key, 0)
            if d > 0:
                counter[key] = before.get(key, 0) + max(0, d - charged.get(key, 0))
                charged[key] = max(charged.get(key, 0), d)
                if not counter[key]:
                    del counter[key]


def _tensor(names: dict[str, Any], name: str, violation: Callable[[str], None]) -> torch.Tensor:
    t = names[name]
    if type(t) not in (torch.Tensor, torch.nn.Parameter):  # the launch rule's tensors; else Triton calls its methods
        violation(f"a reset_to_zero=/restore_value= name ({name}) names a {type(t).__name__}, not a tensor")
    return t


#: The tuners Triton is benchmarking now (``Autotuner._bench`` of each, innermost last: entered by :func:`pinned`).
_BENCHING: list[Any] = []


def check_not_nested(tuner: Any, violation: Callable[[str], None]) -> None:
    """Refuse an autotuned kernel launched while Triton benchmarks another (red team rt41): that benchmarking runs in
    the harness's launch window with the candidate's registration lifted, so the inner tuner's own work (its reset
    ``zero_`` before and after it benchmarks, its restore) ran there untraced and computed ``aten::zero_`` for a kernel
    that did nothing (an autotuner over an autotuner, emulated GPU loop). Refused also when the nesting is in the
    tuner's own chain (``autotune(...)(autotune(...)(jit))``, heuristics between them), so that the CPU interpreter,
    which benchmarks nothing, gives the verdict a GPU gives."""
    from triton.runtime import autotuner

    inner, chain = getattr(tuner, "fn", None), 0
    while type(inner) in (autotuner.Autotuner, autotuner.Heuristics) and chain < 16:
        if type(inner) is autotuner.Autotuner:
            violation("an autotuned kernel over another autotuned kernel: the inner one's reset/restore would run "
                      "inside the outer one's benchmarking, where nothing is traced; autotune the kernel once")
        inner, chain = getattr(inner, "fn", None), chain + 1
    if _BENCHING:
        violation("an autotuned kernel launched while Triton benchmarks another autotuned kernel (from its launch "
                  "grid, hooks or launcher): its reset/restore would run inside that benchmarking, where nothing is "
                  "traced; launch it outside")


@contextlib.contextmanager
def pinned(tuner: Any, args: tuple, kwargs: dict, violation: Callable[[str], None]) -> Iterator[None]:
    """While Triton benchmarks one config of ``tuner`` (``Autotuner._bench(*args, config=, **meta)``, its arguments
    ``args``/``kwargs``; entered before the launch window opens), its own pre/post hooks (those not given by the
    submission) are the harness's: the same reset and restore, on the tensors the launch receives by these names, the
    copies held here; the reset runs traced (:func:`_charged`), the restore's ``clone``/``copy_`` untraced as
    Triton's. A name that is not a tensor's is refused with ``violation``."""
    outer = STATE.inside_launch
    reset = list(tuner.reset_to_zero)
    restore = list(tuner.restore_value)
    config = kwargs.get("config")
    names = dict(zip(tuner.arg_names, args))
    names.update({k: v for k, v in kwargs.items() if k != "config"})
    if config is not None:
        names.update(config.all_kwargs())
    #: name -> (the view of the tensor as cloned, the clone): the restore writes through that view, whatever the
    #: candidate's traced code does to the tensor's own metadata meanwhile (rt41: a launch grid's ``as_strided_``
    #: between the clone and the restore turned Triton's restore into a block move of the candidate's choosing)
    copies: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}

    def zero() -> None:
        for name in reset:
            _tensor(names, name, violation).zero_()

    def pre_hook(nargs: Any, reset_only: bool = False) -> None:
        if reset:
            _charged(zero, outer)
        if not reset_only:
            copies.clear()
            for name in restore:
                t = _tensor(names, name, violation)
                view = t.as_strided(t.size(), t.stride(), t.storage_offset())
                copies[name] = (view, view.clone())

    def post_hook(nargs: Any, exception: Any) -> None:
        for name in restore:
            view, saved = copies[name]
            view.copy_(saved)
        copies.clear()

    swaps = [(attr, hook) for attr, hook, own in (("pre_hook", pre_hook, not tuner.user_defined_pre_hook),
                                                  ("post_hook", post_hook, not tuner.user_defined_post_hook)) if own]
    saved = [(attr, vars(tuner).get(attr)) for attr, _ in swaps]
    for attr, hook in swaps:
        setattr(tuner, attr, hook)
    _BENCHING.append(tuner)
    try:
        yield
    finally:
        _BENCHING.pop()
        for attr, hook in saved:
            setattr(tuner, attr, hook)
