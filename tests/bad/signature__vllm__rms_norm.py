import torch


def rms_norm(out, x, weight, eps):
    return None
