"""Legal: aten::neg (the project's oracle, solutions/aten__neg.py) plus lazily built workspaces that a
kernel zeroes on first use, as split-K / stream-K kernels do with their lock and semaphore buffers.

* ``_locks(device)``: one lock buffer per device, built and zeroed by the ``_zero_locks`` kernel on the
  first call on that device (the first case of a job), then kept.
* ``_workspace(n, device)``: one scratch buffer per element count, zeroed by the same kernel the first
  time that size is seen (each case's first run, on the inputs L2 later replays).

So the first run on given inputs makes one or two more launches than every later run on them. The
neg kernels do not read the buffers (they stand in for the real users). L2 must not replay the log of
a first sighting: a replay that followed it would see fewer launches and be reported as a divergence
(run/job.py ``ghost_schedule``: a warm re-run always comes between a case's first run and its replay)."""

SUBSTITUTIONS = [
    ("import torch\n", "import functools\n\nimport torch\n"),
    ("""\
# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)
""", """\
@triton.jit
def _zero_locks(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + offs, tl.zeros([BLOCK], dtype=tl.int32), mask=offs < n)


@functools.lru_cache(maxsize=None)
def _locks(device):
    \"\"\"The device's lock buffer: zeroed by a kernel once, on the first call on the device.\"\"\"
    buf = torch.empty(64, dtype=torch.int32, device=device)
    _zero_locks[(1,)](buf, 64, BLOCK=64)
    return buf


@functools.lru_cache(maxsize=None)
def _workspace(n, device):
    \"\"\"A per-size scratch buffer: zeroed by a kernel once, the first time a size is seen.\"\"\"
    m = max(1, min(n, 1024))
    buf = torch.empty(m, dtype=torch.int32, device=device)
    _zero_locks[(1,)](buf, m, BLOCK=1024)
    return buf


# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)
"""),
    ("def _run(x, out):\n", "def _run(x, out):\n    _locks(x.device)\n    _workspace(x.numel(), x.device)\n"),
]
