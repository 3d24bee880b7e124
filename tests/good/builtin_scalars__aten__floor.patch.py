"""Legal (fp30): the aten::floor oracle whose JIT-only scalar overloads are Python's own callables and a cached
function: ``floor_int = int``, ``floor_float = math.floor`` (float -> int, as aten::floor.float) and an
``@functools.lru_cache`` ``floor_Scalar``. wrapper_signature (sandbox/dispatch.py) refused all three on branch next
("the harness cannot read this wrapper's parameters"), where they had passed before. Must pass."""

SUBSTITUTIONS = [
    ("""def floor_int(a):
    return int(a)
""", """floor_int = int
"""),
    ("""def floor_float(a):
    return int(math.floor(a))
""", """floor_float = math.floor  # float -> int, as aten::floor.float
"""),
    ("""def floor_Scalar(a):
""", """import functools


@functools.lru_cache(maxsize=1024)
def floor_Scalar(a):
"""),
]
