import numpy as np
import torch


def rms_norm(out, input, weight, epsilon):
    x = input.cpu().numpy()
    out.copy_(torch.from_numpy(x))
