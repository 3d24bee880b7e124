"""The agent track (issue 16): ``kgb agent`` runs coding agents headless, one session per operator, in an
isolated workspace with a self-check and a time budget; ``kgb check`` is the self-check on its own.

* :mod:`.run`: the sessions, verdicts and records (:class:`~.run.AgentRun`);
* :mod:`.clis`: the CLIs (Claude Code, Codex, OpenCode, Gemini CLI) and ``--agent command``;
* :mod:`.usage`: tokens and cost from each CLI's stream;
* :mod:`.isolation` and :mod:`.jail`: what an agent can reach;
* :mod:`.selfcheck`: the workspace's ``./check`` and its server;
* :mod:`.summary`: the run's scores; :mod:`.commands`: the command line.
"""
