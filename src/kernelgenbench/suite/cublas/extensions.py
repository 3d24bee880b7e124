"""BLAS-like extension cuBLAS routines (cublas.md §3): SgemmEx, Sgeam, Sdgmm, CsyrkEx.

Each routine is one declaration (decl.py) plus what only it needs: grids, math, cost, gate.
"""
from __future__ import annotations


from ..spec import product
from .grids import AB3, G9, TT4
from .level3 import gemm_atol, gemm_cost, gemm_fill, gemm_gate, gemm_reference
from .routines import SGEMMEX_R
from .rows import Row, routine_operator

_R32F = dict(Atype=0, Btype=0, Ctype=0)

SGEMMEX = routine_operator(Row(
    SGEMMEX_R, category="extension gemm",
    semantics="C = alpha*op(A)*op(B) + beta*C computed in true fp32 (no TF32), A, B, C stored in the types their "
              "cudaDataType codes name (graded: Atype = Btype = Ctype = 0, CUDA_R_32F: float32, i.e. Sgemm; other "
              "codes may raise ValueError); column-major with leading dimensions; beta == 0: C not read; "
              "alpha == 0: A, B not read. Returns C.",
    grids={
        "smoke": [dict(m=1, n=1, k=1, transa="N", transb="N", alpha=1.0, beta=0.0, **_R32F),
                  dict(m=17, n=13, k=9, transa="T", transb="N", alpha=0.5, beta=0.5, **_R32F),
                  dict(m=16, n=16, k=16, transa="N", transb="T", alpha=-1.0, beta=1.0, **_R32F)],
        "full": [dict(m=d["s"][0], n=d["s"][1], k=d["s"][2], alpha=d["ab"][0], beta=d["ab"][1], transa=d["tt"][0],
                      transb=d["tt"][1], **_R32F) for d in product(s=G9, ab=AB3, tt=TT4)],
        "heldout": [dict(m=200, n=100, k=300, transa="T", transb="T", alpha=1.0, beta=0.0, pad=3, nan_C=True,
                         **_R32F),
                    dict(m=128, n=128, k=256, transa=0, transb=0, alpha=0.5, beta=-1.0, **_R32F)],
    },
    reference=gemm_reference, fill=gemm_fill, atol_text=gemm_atol(SGEMMEX_R.dtype),
    notes="Held-out mixed-precision type triples of the spec (H2 fp16 -> fp32, H3 bf16) are not graded here: a "
          "routine declaration has one storage precision.",
    cost=gemm_cost(4, False, "fp32"), timed=gemm_gate,
))


OPERATORS = [SGEMMEX]
