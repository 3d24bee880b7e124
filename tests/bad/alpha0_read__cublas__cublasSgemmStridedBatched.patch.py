"""Red team (session 25, quick returns): cuBLAS SgemmStridedBatched (the project's oracle) that reads A and B even
when alpha == 0 (cublas.md §2.5: they are not read, the result is beta*C). With finite A and B the result is the
same; with NaN in them 0*NaN = NaN reaches C. It passed smoke and held-out while no case put NaN into A/B with
alpha == 0; the smoke case of decl.quick_cases (alpha 0, A and B NaN) catches it -> wrong_result."""

SUBSTITUTIONS = [
    ("    has_ab = k > 0 and abs(alpha) > zero\n", "    has_ab = k > 0\n"),
]
