"""Reports and comparisons over run directories (issue 17): ``kgb report``, ``kgb compare``.

* :mod:`.load` reads a run directory (``kgb eval``, ``kgb generate``, later ``kgb agent``) into a
  :class:`~.load.Run`: one *system* with one verdict per operator. Records are read as JSON dicts by one
  function, :func:`~.load.read_records`, so a typed record format stays a local change there.
* :mod:`.model` computes every number of a report from those verdicts (accuracy, two-level geomean,
  median and IQM speedups, fast_p, matched sets with bootstrap intervals, difficulty, failure taxonomy,
  anti-hack interceptions, cost and the portability tax) into :class:`~.model.Table` s: one model.
* :mod:`.render` writes the same tables as Markdown, CSV, LaTeX and terminal tables; :mod:`.html` as one
  self-contained HTML page with matplotlib plots.
* :mod:`.compare` compares two runs operator by operator; :mod:`.author` holds the kernel author's
  tools (``kgb show --cases``, ``kgb init``, ``kgb repro``).

Nothing here is imported on the harness's runtime path (``sandbox/``, ``run/job.py``, ``verify/``).
"""
