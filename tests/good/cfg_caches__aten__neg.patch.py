"""Legal: the aten::neg oracle with its launch configuration cached across calls in four forms.

Red-team regression (L1 consistency): a module-level dict that caches launch configurations was
rejected by L1's module-cache rule while the same cache held in a closure, an lru_cache or a mutable
default argument passed. All four hold configuration only (block sizes, warps, coalesced dims, grids),
derived from shapes and strides, never from tensor values or results, and must pass:

* ``_BLOCKS``: a module-level dict, (n, device type) -> (block, warps);
* ``_next_pow2``: ``functools.lru_cache``;
* ``_coalesce``: a dict held in a closure, (shape, strides) -> coalesced dims;
* ``_grid``: a mutable default argument, (n, block) -> launch grid.

The kernels and wrappers are the oracle's (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("import torch\n", "import functools\n\nimport torch\n"),
    ("def _next_pow2(n):\n", "@functools.lru_cache(maxsize=None)\ndef _next_pow2(n):\n"),
    ("def _block(n, device):\n", """\
_BLOCKS = {}


def _block(n, device):
    key = (n, device.type)
    if key not in _BLOCKS:
        _BLOCKS[key] = _block_uncached(n, device)
    return _BLOCKS[key]


def _grid(n, block, _memo={}):
    if (n, block) not in _memo:
        _memo[(n, block)] = (_cdiv(n, block),)
    return _memo[(n, block)]


def _block_uncached(n, device):
"""),
    ("def _coalesce(shape, strides):\n", """\
def _make_coalesce():
    plans = {}

    def coalesce(shape, strides):
        key = (tuple(shape), tuple(tuple(s) for s in strides))
        if key not in plans:
            plans[key] = _coalesce_uncached(shape, strides)
        return list(plans[key])
    return coalesce


def _coalesce_uncached(shape, strides):
"""),
    ("\n\ndef _launch(", "\n\n_coalesce = _make_coalesce()\n\n\ndef _launch("),
    ("    grid = (_cdiv(n, block),)\n", "    grid = _grid(n, block)\n"),
]
