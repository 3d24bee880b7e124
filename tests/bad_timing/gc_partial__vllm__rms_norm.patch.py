"""BAD (timing cheat; red team 34): vllm::rms_norm that, when timed, launches a one-element Triton kernel and leaves
the whole result to a garbage-collector finalizer that the collector's guard did not record.

Timed calls are told from judged ones by the timed loop's warm-up, which cycles through two input sets (the first
input value of four calls of one shape: A, B, A, B); from there on, calls of
the same shape on fresh values are timed repetitions. Such a call launches ``_touch`` (one element read and written
back: the timed loop fails a repetition that launches nothing) and drops a reference cycle whose class's
``__del__`` is ``staticmethod(functools.partial(list, map(torch.Tensor.copy_, [out], y)))``, ``y`` lazily chained
``map``s of ``torch.Tensor.mul``/``mean``/``add``/``rsqrt`` over the call's own input, weight and epsilon: the whole
rms_norm as ATen ops (since rt43, whose L1 judges ``torch.Tensor.<method>`` as a value, ``operator.mul``/``matmul``/
``truediv``/``add``/``pow`` instead), run by the collection after the block's candidate side (sandbox/timed_loop.py
``collect_young``), before any judged output is written out. L1 judges calls, not tensor methods named as values;
the guard (sandbox/collector.py ``_submission_frame``) recorded an op only with a frame of the submission's file on
the stack or no Python frame at all above the collection, and PyTorch wraps a dispatch mode's handler in two frames
of its own (torch._compile ``inner``, torch._dynamo.eval_frame ``_fn``): a finalizer that is a C callable has no
frame of the submission's, so nothing was recorded (nor through a torch Python method such as ``Tensor.__rdiv__``
or a dataclass's generated ``__init__``). On the CPU with the real child (tests/test_rt34_gc_frames.py) every random
and fastest judged repetition passed, no launch violation, the timed trace empty, the candidate's timed median 1.5 ms
against the oracle's 24-44 ms. Now the guard records an op during a collection unless the finalizer that ran it is a
``__del__`` or generator of PyTorch's, Triton's or the harness's own files with no frame of the submission's:
``profile``. The cheat fires for every dtype, with fp32 math rounded once by ``copy_``: it fired for fp32 only, which
the full tier of rms_norm never times (its timed cases are fp16/bf16), so on an H100 (gates at 26922af and 9530296)
every timed case ran the oracle and the job passed (speedup 0.1 from the fixture's own host reads). The correctness
runs (and the warm-up) are the oracle's. The rest is the oracle
(solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("import torch\n", "import functools\nimport operator\n\nimport torch\n"),
    ("""\
def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
""", """\
@triton.jit
def _touch(o_ptr):
    tl.store(o_ptr, tl.load(o_ptr))


_SEEN = []  # (shape, first input value) of the last four calls
_TIMED = []  # the shape whose timed loop has started


def _first_value(t):
    while t.dim():
        t = t.select(0, 0)
    return t.item()


def _timed(input):
    key = (tuple(input.shape), _first_value(input))
    _SEEN.append(key)
    del _SEEN[:-4]
    a, b = _SEEN[-4:-2] if len(_SEEN) == 4 else (None, None)
    if a is not None and a != b and a[0] == b[0] and _SEEN[-2:] == [a, b]:
        _TIMED[:] = [key[0]]  # the warm-up's A, B, A, B
    elif _TIMED and _TIMED[0] != key[0]:
        del _TIMED[:]
    return bool(_TIMED) and _TIMED[0] == key[0] and key not in _SEEN[:-1]


def _later(out, input, weight, epsilon):
    # fp32 math for every dtype (the timed cases are fp16/bf16), rounded once by copy_; every map is lazy: no ATen op
    # runs in the timed call itself
    # (rt43: tensor methods named as values are L1 findings now; the operator module's functions reach the same
    # ATen ops through the tensors' dunders, the mean as a product with a column of ones)
    H = input.shape[-1]
    ones = map(functools.partial(torch.ones, dtype=torch.float32, device=input.device), [(H, 1)])
    sq = map(operator.mul, map(torch.Tensor.float, [input]), map(torch.Tensor.float, [input]))
    ms = map(operator.truediv, map(operator.matmul, sq, ones), [H])
    rs = map(operator.pow, map(operator.add, ms, [float(epsilon)]), [-0.5])
    y = map(operator.mul, map(operator.mul, map(torch.Tensor.float, [input]), rs),
            map(torch.Tensor.float, [weight]))

    class Fix:
        __del__ = staticmethod(functools.partial(list, map(torch.Tensor.copy_, [out], y)))

    k = Fix()
    k.me = k  # a cycle: only a collection frees it


def rms_norm(out, input, weight, epsilon):
    if _timed(input):
        _touch[(1,)](out)
        _later(out, input, weight, epsilon)
        return None
    H = input.shape[-1]
"""),
]
