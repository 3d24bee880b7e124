import torch

_TABLE = {"block": 128}
_BLOCK = _TABLE["blocks"]  # KeyError at import


def rms_norm(out, input, weight, epsilon):
    return None
