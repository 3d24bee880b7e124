"""Red team (session 25, quick returns): cuBLAS SgemmStridedBatched (the project's oracle) that reads C even when
beta == 0 (cublas.md §2.5: C is not read; NaN there must not propagate). Only a held-out case put NaN into C with
beta == 0; the smoke case of decl.quick_cases (beta 0, C NaN) catches it -> wrong_result."""

SUBSTITUTIONS = [
    ("    read_c = abs(beta) > zero\n", "    read_c = True\n"),
]
