"""Legal: aten::neg (the project's oracle) plus a warm-up at import: a workspace zeroed by a Triton kernel
when the module loads (on the device the harness selected), with a handful of scalar arguments (sizes and a
fill value). Scalars handed to launches at import count against the import's budget of host Python data
(64 values, as ``torch.tensor`` of a small table does); a warm-up like this one fits, a table of answers
uploaded through launch arguments does not (tests/bad/import_scalars__aten__i0.patch.py)."""

SUBSTITUTIONS = [
    ("""\
# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)
""", """\
@triton.jit
def _fill_ws(p, n, v, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + offs, tl.full([BLOCK], v, dtype=tl.float32), mask=offs < n)


_WS = torch.empty(256, dtype=torch.float32, device="cuda" if torch.cuda.is_available() else "cpu")
_fill_ws[(1,)](_WS, 256, 0.0, BLOCK=256)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata and allocation only)
"""),
]
