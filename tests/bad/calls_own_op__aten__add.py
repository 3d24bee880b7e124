import torch


def add_Tensor(self, other, *, alpha=1):
    return torch.add(self, other, alpha=alpha)


def add_Scalar(self, other, alpha=1):
    return torch.add(self, other, alpha=alpha)


def add_out(self, other, *, alpha=1, out):
    return torch.add(self, other, alpha=alpha, out=out)


def add_Scalar_out(self, other, alpha=1, *, out):
    return torch.add(self, other, alpha=alpha, out=out)
