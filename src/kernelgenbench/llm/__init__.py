"""The LLM track: prompts built from the operator spec, sampling with pass@k and reflection, and
exact token accounting (issue 4).

* :mod:`.prompt` renders the jinja2 templates in ``templates/`` for one operator and platform;
* :mod:`.extract` takes the submission out of a model's reply;
* :mod:`.clients` talks to OpenAI-compatible and Anthropic endpoints through their official SDKs
  (optional extras, imported lazily: the evaluation path never imports them);
* :mod:`.generate` samples, evaluates every sample through the ``kgb eval`` pipeline and resumes;
* :mod:`.summary` aggregates pass@1 / pass@k, speedups, tokens and wall-clock;
* :mod:`.commands` registers ``kgb prompt`` and ``kgb generate``.
"""
