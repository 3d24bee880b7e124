"""Reductions and normalisations (amin, argmax, mean, softmax, pairwise_distance, renorm)."""
from __future__ import annotations

from ..spec import Operator

OPERATORS: list[Operator] = []
