"""Matmuls, shape operators, diff and sort."""
from __future__ import annotations

from ..spec import Operator

OPERATORS: list[Operator] = []
