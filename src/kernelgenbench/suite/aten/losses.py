"""Losses and backward operators."""
from __future__ import annotations

from ..spec import Operator

OPERATORS: list[Operator] = []
