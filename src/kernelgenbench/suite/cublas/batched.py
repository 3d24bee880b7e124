"""Batched cuBLAS routines (cublas.md §3): one declaration (decl.py) per routine plus what only it needs."""
from __future__ import annotations

OPERATORS: list = []
