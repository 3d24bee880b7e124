"""Random operators, judged by statistics and invariants (aten.md §5, per-operator sections)."""
from __future__ import annotations

from ..spec import Operator

OPERATORS: list[Operator] = []
