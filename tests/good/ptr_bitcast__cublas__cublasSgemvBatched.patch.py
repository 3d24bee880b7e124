"""LEGAL (red team of the pointer arrays): cublasSgemvBatched reading the addresses through float64 views of
the int64 address tensors (``Aarray.view(torch.float64)``: the same bytes, a view) and bitcasting each loaded
word back to int64 before turning it into a pointer. The addresses are unchanged; the interpreter's bounds
checks admit what they point into whatever dtype the launch's view has. The rest is the oracle."""

SUBSTITUTIONS = [
    ("tl.load(AP + bat)", "tl.load(AP + bat).to(tl.int64, bitcast=True)", 2),
    ("tl.load(XP + bat)", "tl.load(XP + bat).to(tl.int64, bitcast=True)", 2),
    ("tl.load(YP + bat)", "tl.load(YP + bat).to(tl.int64, bitcast=True)", 2),
    ("        Aarray, xarray, yarray, m_out,",
     "        Aarray.view(torch.float64), xarray.view(torch.float64), yarray.view(torch.float64), m_out,"),
]
