"""Legal: aten::bitwise_not (the project's oracle) with the bool cases computed as ``~x & 1`` on the
bool bytes viewed as uint8, in uint8. A GPU computes this; Triton 3.6's CPU interpreter builds ``~x`` as
an XOR with ``-1`` converted to a uint8 NumPy array, which NumPy refuses (``OverflowError: Python integer
-1 out of bounds for uint8``, raised inside the interpreter). That is a limit of the interpreter, not the
kernel's error: on the interpreter those cases are ``unsupported`` (verify/failures.py
``interpreter_limit``), never failed; the integer cases pass (issue 11)."""

SUBSTITUTIONS = [
    ("        y = x ^ 1\n", "        y = ~x & 1\n"),
    ("return _launch(x, out, tl.int32, 0.0, 1)", "return _launch(x, out, tl.uint8, 0.0, 1)"),
]
