"""Legal (session 25's second red team, a false rejection): aten::add_ (the project's oracle) that calls
``self.resize_(self.shape)`` before adding, a no-op PyTorch keeps the elements through. The sandbox poisons what
resize_ leaves uninitialised; it used to poison the whole tensor after every resize_, wiping self's values."""

SUBSTITUTIONS = [
    ("""def add__Tensor(self, other, *, alpha=1):
    return _add_(self, other, alpha)
""", """def add__Tensor(self, other, *, alpha=1):
    self.resize_(self.shape)
    return _add_(self, other, alpha)
"""),
]
