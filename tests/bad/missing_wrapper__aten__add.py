import torch
import triton
import triton.language as tl


def add_Scalar(self, other, alpha=1):
    return self
