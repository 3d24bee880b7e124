import torch


def index_select(self, dim, index):
    shape = list(self.shape)
    shape[dim] = index.numel()
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    for j in range(index.numel()):
        out.select(dim, j).copy_(self.select(dim, int(index[j].item())))
    return out


def index_select_out(self, dim, index, *, out):
    res = index_select(self, dim, index)
    out.resize_(res.shape)
    out.copy_(res)
    return out
