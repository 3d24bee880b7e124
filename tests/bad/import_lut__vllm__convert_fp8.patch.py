"""CHEAT (session 38, L3's host-data budget counted elements, not bytes): vllm::convert_fp8's dequantisation by a
table of answers computed in Python at import. The fp16 value of every one of the 256 E4M3 codes (fp16 holds each
exactly) is worked out on the host and packed four to an int64, so the whole table is 64 elements of host-built
tensor data: within the import budget of 64 elements, although its 512 bytes are 256 answers. The kernel only
looks the code up (through an int16 view) and scales. Caught since host data counts its bytes in 4-byte units
(an int64 element counts two: verify/profile.py HOST_DATA_UNIT)."""

SUBSTITUTIONS = [
    ("_BLOCK = 1024\n", '''_BLOCK = 1024


def _f16_bits(c):
    # the fp16 pattern of E4M3 code c, worked out on the host
    s, e, m = c >> 7, (c >> 3) & 15, c & 7
    if e == 15 and m == 7:
        return (s << 15) | 0x7E00
    if e == 0:
        if m == 0:
            return s << 15
        p = m.bit_length() - 1
        return (s << 15) | ((p + 6) << 10) | ((m - (1 << p)) << (10 - p))
    return (s << 15) | ((e + 8) << 10) | (m << 7)


def _word(i):
    w = sum(_f16_bits(4 * i + k) << (16 * k) for k in range(4))
    return w - (1 << 64) if w >= 1 << 63 else w


_DEV = "cuda" if torch.cuda.is_available() else "cpu"
_TAB = torch.tensor([_word(i) for i in range(64)], dtype=torch.int64, device=_DEV)  # 256 fp16 answers
'''),
    ("""    b = tl.load(b_ptr + off, mask=m, other=0).to(tl.int32)
    sign = (b >> 7) & 1
    e = (b >> 3) & 15
    mant = b & 7
    # E4M3 -> fp32 exactly: normals by their fp32 pattern, subnormals as mant * 2^-9, 0x7F/0xFF NaN
    v = ((sign << 31) | ((e + 120) << 23) | (mant << 20)).to(tl.float32, bitcast=True)
    sub = mant.to(tl.float32) * 0.001953125
    # the sign by its bit (Triton's unary minus is 0 - x, which loses the sign of zero)
    sub = (sub.to(tl.int32, bitcast=True) | (sign << 31)).to(tl.float32, bitcast=True)
    v = tl.where(e == 0, sub, v)
    nan = tl.full(v.shape, 0x7FC00000, tl.int32).to(tl.float32, bitcast=True)
    v = tl.where((b & 0x7F) == 0x7F, nan, v)
""", """    b = tl.load(b_ptr + off, mask=m, other=0).to(tl.int32)
    v = tl.load(tab_ptr + b, mask=m, other=0).to(tl.float16, bitcast=True).to(tl.float32)
"""),
    ("def _dequant_kernel(b_ptr, out_ptr, N, scale, BLOCK: tl.constexpr):",
     "def _dequant_kernel(b_ptr, tab_ptr, out_ptr, N, scale, BLOCK: tl.constexpr):"),
    ("        _dequant_kernel[grid](input, output, n, float(scale), BLOCK=_BLOCK, num_warps=4)",
     "        _dequant_kernel[grid](input, _TAB.view(torch.int16), output, n, float(scale), BLOCK=_BLOCK, num_warps=4)"),
]
