"""Copies, dtype casts and concatenation."""
from __future__ import annotations

from ..spec import Operator

OPERATORS: list[Operator] = []
