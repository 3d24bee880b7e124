"""Legal (fp30): the vllm::grouped_topk oracle whose optional ``scoring_func`` defaults to an ``enum.IntEnum`` member
equal to the interface's 0 (``ScoringFunc.SOFTMAX``), as vLLM-style code names its modes. Branch next compared a
default with the interface's only when its type() was plain (None/bool/int/float/str) and failed this one as a
signature mismatch, where it had passed before; the interface's plain type's own ``__eq__`` compares it without
running the submission's code. Must pass."""

SUBSTITUTIONS = [
    ("import torch\n", "import enum\n\nimport torch\n"),
    ("def grouped_topk(", """class ScoringFunc(enum.IntEnum):
    SOFTMAX = 0
    SIGMOID = 1


def grouped_topk("""),
    ("scoring_func=0):", "scoring_func=ScoringFunc.SOFTMAX):"),
]
