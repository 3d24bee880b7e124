"""Shared shape, scalar and dtype pools of the ATen grids (aten.md §2)."""
from __future__ import annotations

POINTWISE_SHAPES = [[], [1], [1024, 1024], [20, 320, 15], [16, 128, 64, 60], [16, 7, 57, 32, 29]]
SPECIAL_SHAPES = [[1], [1024, 1024], [20, 320, 15], [16, 128, 64, 1280], [16, 7, 57, 32, 29]]
REDUCTION_SHAPES = [[1, 2], [4096, 256], [200, 40999, 3]]
REDUCTION_SMALL_SHAPES = [[1, 2], [4096, 256], [200, 2560, 3]]
EMPTY_SHAPES = [[0, 5], [3, 0, 4], [2, 5, 0], [0]]
ALPHAS = [0.001, -0.999, 100.001, -111.999]  # SCALARS
FLOAT3 = ["fp16", "fp32", "bf16"]             # FLOAT_DTYPES
ALL_FLOAT = FLOAT3 + ["fp64"]
INT2 = ["int16", "int32"]
ALL_INT = INT2 + ["int64"]
HELDOUT_POINTWISE = [[], [7], [511, 257], [7, 17, 31], [5, 7, 11, 13], [2, 3, 4, 5, 6]]
HELDOUT_REDUCTION = [[3, 5], [2048, 129], [151, 8191, 5]]
