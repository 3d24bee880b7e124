"""Red team (session 25, memory): aten::add_ (the project's oracle) that moves ``self`` onto a copy of its storage
through the ``.data`` setter and adds in there: ``self`` shows the sum, but the storage the caller holds (a view
of a larger tensor, the other views of it) keeps the old values. Caught by L3's memory provenance
(sandbox/dispatch.py replaced_storages) -> profile."""

SUBSTITUTIONS = [
    ("""    _check_inplace(self, shape, common)
    return _launch(self, other, self, common, 0, alpha)
""", """    _check_inplace(self, shape, common)
    self.data = self.clone()
    return _launch(self, other, self, common, 0, alpha)
"""),
]
