import torch
def add_Tensor(self, other, *, alpha=1)
    return self
