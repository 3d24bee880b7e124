"""Legal (issue 12 class 2, the honest side of tracing the import): aten::neg (the project's oracle) whose
module-level code builds constant tables of launch settings (a dict and a list: host Python, not tensor
code, whatever their method names) and small module-level tensors by allocation, fills and views (a
zeroed scratch buffer, a filled table of block sizes). The import runs under the dispatch trace of a call
and is judged by the same allowlist and budgets: allocation, fills and views pass."""

SUBSTITUTIONS = [
    ("_MAXD = 5\n", """_MAXD = 5

_SETTINGS = {"cpu": (65536, 4), "cuda": (1024, 4)}
_SIZES = [128, 256, 512, 1024]
_SETTINGS.update({"hip": (1024, 8)})
_SIZES.sort()
_SCRATCH = torch.zeros(8, dtype=torch.int32)
_TABLE = torch.full((4,), 1024, dtype=torch.int64)
_VIEW = torch.empty(16).view(4, 4).t()
"""),
]
