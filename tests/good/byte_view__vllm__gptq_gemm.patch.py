"""LEGAL (packed-layout rule, Operator.packed_args): vllm::gptq_gemm handing its packed arguments to the kernel
through dtype views and an exact staging copy. 8-bit weights go to the kernel as ``b_q_weight.view(torch.uint8)``
(a pointer cast: the kernel itself picks byte k mod 4 of word [k // 4, n], little-endian); the zero points are
copied whole, exactly as given, into a scratch buffer allocated as uint8 (through its int32 view: same element
size, identity mapping) and handed over as ``zbuf.view(torch.int32)``; 4-bit weights go through a uint8 -> int32
view round trip. No ATen op rearranges or reinterprets packed bytes, so nothing is marked. The rest is the oracle."""

SUBSTITUTIONS = [
    ("        words = tl.load(qw_ptr + (rk // PF)",
     """        if BIT == 8:
            # qw_ptr: the words as bytes; element (k, n) is byte k mod 4 of word [k // 4, n]
            boff = ((rk // 4).to(tl.int64)[:, None] * N + rn64[None, :]) * 4 + (rk % 4)[:, None]
            q = tl.load(qw_ptr + boff, mask=nm[None, :], other=0).to(tl.int32)
        else:
            words = tl.load(qw_ptr + (rk // PF)"""),
    ("        q = (words >> shift[:, None]) & MASK\n", "            q = (words >> shift[:, None]) & MASK\n"),
    ("""    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _gptq_kernel[grid](a.contiguous(), b_q_weight.contiguous(), b_gptq_qzeros.contiguous(),
""", """    qw = b_q_weight.contiguous()
    qw = qw.view(torch.uint8) if bit == 8 else qw.view(torch.uint8).view(torch.int32)
    qz = b_gptq_qzeros.contiguous()
    zbuf = torch.empty(qz.numel() * 4, dtype=torch.uint8, device=qz.device)
    zbuf.view(torch.int32).view(qz.shape).copy_(qz)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    _gptq_kernel[grid](a.contiguous(), qw, zbuf.view(torch.int32),
"""),
]
