import torch

n = 0
while True:  # never finishes importing
    n += 1


def rms_norm(out, input, weight, epsilon):
    return None
