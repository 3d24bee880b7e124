import torch


def rms_norm(out, input, weight, epsilon):
    raise SystemExit(3)
