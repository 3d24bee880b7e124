"""The agent CLIs ``kgb agent`` drives headless, and ``--agent command`` (any program).

Each adapter knows where its CLI is installed, how to ask its version, the command line and environment of a
headless session (machine-readable output, every permission prompt answered yes, web tools off where the CLI
allows, telemetry and self-update off, all state in the session's private home), which environment
variables carry its credentials, and how to read its output (:mod:`.usage`).

Pinned versions (``tools/install_agent_clis.sh`` installs them into ``.agents/<cli>/`` under the checkout):
Claude Code 2.1.328, Codex CLI 0.171.0, OpenCode 1.18.33, Gemini CLI 0.61.0. Every flag below was checked
against these versions. A CLI is found at ``$KGB_<NAME>_BIN`` (``KGB_CLAUDE_CODE_BIN``, ``KGB_CODEX_BIN``,
``KGB_OPENCODE_BIN``, ``KGB_GEMINI_BIN``), else in ``$KGB_AGENTS_DIR`` or the checkout's ``.agents/``, else on
``PATH``.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .usage import PARSERS, StreamInfo

#: The checkout (``src/kernelgenbench/agent/clis.py`` -> the repository root), where ``.agents/`` lives.
CHECKOUT = Path(__file__).resolve().parents[3]


class AgentError(ValueError):
    """A usage error about an agent: unknown name, CLI not installed, a bad command template."""


@dataclass
class LaunchContext:
    """What a session needs to be started.

    Attributes:
        op_id: the operator.
        workspace: the agent's working directory (the submission file is written there).
        home: the agent's private home (``HOME`` and every config/state directory of the CLI).
        prompt_file: the agent-mode prompt, readable by the agent (``{prompt_file}``).
        prompt: the prompt's text (``{prompt}``).
        submission: the file the agent must write (absolute path).
        check: the self-check command, as the prompt names it.
        device: the device index the session is pinned to (None on the interpreter).
        model: ``--model`` (None: the CLI's default).
        base_url: ``--base-url`` (None: the CLI's default endpoint, or its own variable).
        api_key_env: the variable holding the key for ``base_url`` (Codex, OpenCode).
        max_turns: ``--max-turns`` where the CLI has one.
        budget_s: the session's wall-clock budget.
        as_root: the session runs as root (no separate user): Claude Code then needs ``IS_SANDBOX=1``.
    """

    op_id: str
    workspace: Path
    home: Path
    prompt_file: Path
    prompt: str
    submission: Path
    check: str
    device: int | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    max_turns: int | None = None
    budget_s: float = 1800.0
    as_root: bool = False


@dataclass
class Launch:
    """A session's command: ``argv`` run in ``cwd`` with exactly ``env`` (plus the session's common variables),
    ``stdin`` from a file (or /dev/null), and ``expose``: paths the session must be able to read (the CLI's
    install) when it runs in the jail."""

    argv: list[str]
    env: dict[str, str]
    stdin: Path | None
    expose: list[Path] = field(default_factory=list)


def _install_root(binary: Path) -> Path:
    """What must be visible for ``binary`` to run: the folder holding its ``node_modules`` tree (an npm
    prefix), else the folder of the file it resolves to."""
    real = binary.resolve()
    for p in [binary.parent, *binary.parents, *real.parents]:
        if p.name == "node_modules":
            return p.parent
    return real.parent


class AgentCLI:
    """One agent CLI (subclasses set the class attributes)."""

    #: ``--agent`` name
    name = ""
    #: executable name
    binary = ""
    #: the pinned npm package (``tools/install_agent_clis.sh``)
    package = ""
    #: environment variables passed through to the session when set (credentials and endpoints)
    credentials: tuple[str, ...] = ()
    #: what the stream format is called in ``--stream-format``
    stream_format = ""

    def find(self) -> Path | None:
        """The CLI's executable, or None when it is not installed."""
        env = os.environ.get(f"KGB_{self.name.upper().replace('-', '_')}_BIN")
        if env:
            return Path(env) if Path(env).is_file() else None
        roots = [Path(os.environ["KGB_AGENTS_DIR"])] if os.environ.get("KGB_AGENTS_DIR") else []
        roots.append(CHECKOUT / ".agents")
        for root in roots:
            cand = root / self.name / "node_modules" / ".bin" / self.binary
            if cand.exists():
                return cand
        found = shutil.which(self.binary)
        return Path(found) if found else None

    def install_hint(self) -> str:
        return (f"{self.name} is not installed: run `tools/install_agent_clis.sh {self.name}` in the checkout "
                f"(npm install --prefix .agents/{self.name} {self.package}), or put `{self.binary}` on PATH, or "
                f"set KGB_{self.name.upper().replace('-', '_')}_BIN to its executable")

    def require(self) -> Path:
        """The executable, or AgentError with how to install it."""
        path = self.find()
        if path is None:
            raise AgentError(self.install_hint())
        return path

    def version(self, path: Path) -> str:
        """``<cli> --version``, run with a throw-away home (a CLI may write its config there)."""
        with tempfile.TemporaryDirectory(prefix="kgb-agent-version-") as home:
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LANG": "C.UTF-8",
                   "XDG_CONFIG_HOME": f"{home}/.config", "XDG_DATA_HOME": f"{home}/.local/share",
                   "XDG_CACHE_HOME": f"{home}/.cache", "XDG_STATE_HOME": f"{home}/.local/state",
                   "CLAUDE_CONFIG_DIR": f"{home}/.claude", "CODEX_HOME": f"{home}/.codex",
                   "DISABLE_AUTOUPDATER": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1", "NO_COLOR": "1"}
            os.makedirs(f"{home}/.codex", exist_ok=True)
            try:
                out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=120, env=env,
                                     stdin=subprocess.DEVNULL, cwd=home)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise AgentError(f"{self.name}: `{path} --version` failed: {exc}") from None
        text = (out.stdout or out.stderr).strip().splitlines()
        if out.returncode != 0 or not text:
            raise AgentError(f"{self.name}: `{path} --version` exited with {out.returncode}: "
                             f"{(out.stderr or out.stdout).strip()[-500:]}")
        return text[-1].strip()

    def session_env(self, ctx: LaunchContext) -> dict[str, str]:
        """The CLI's own variables (config directories, switches); credentials are added by the caller."""
        return {}

    def launch(self, ctx: LaunchContext, path: Path) -> Launch:
        """The command line and stdin of one headless session; each CLI class defines its own."""
        raise NotImplementedError(f"{type(self).__name__} does not define how to launch {self.name}")

    def parse(self, transcript: Path | None, home: Path | None) -> StreamInfo:
        return PARSERS[self.name](transcript, home)

    def turn_cap_exit(self, code: int | None) -> bool:
        """Whether an exit status means the CLI stopped at its turn cap."""
        return False


class ClaudeCode(AgentCLI):
    """Claude Code (``claude -p``), verified with 2.1.328.

    ``-p --output-format stream-json --verbose --include-partial-messages`` (NDJSON: ``system/init``, one
    ``assistant`` event per content block, ``stream_event`` with the raw API stream events, ``result`` last),
    ``--permission-mode bypassPermissions`` (refused as root unless ``IS_SANDBOX=1``), ``--disallowedTools
    WebFetch WebSearch``, the prompt on stdin. State: ``CLAUDE_CONFIG_DIR`` in the private home (sessions,
    projects/ transcripts, settings). Endpoint and key: ``ANTHROPIC_BASE_URL``, ``ANTHROPIC_API_KEY`` or
    ``ANTHROPIC_AUTH_TOKEN`` (also Bedrock/Vertex switches).
    """

    name = "claude-code"
    binary = "claude"
    package = "@anthropic-ai/claude-code@2.1.328"
    stream_format = "claude-code"
    credentials = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL",
                   "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL",
                   "ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_CUSTOM_HEADERS", "CLAUDE_CODE_USE_BEDROCK",
                   "CLAUDE_CODE_USE_VERTEX", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                   "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "CLOUD_ML_REGION", "ANTHROPIC_VERTEX_PROJECT_ID")

    def session_env(self, ctx: LaunchContext) -> dict[str, str]:
        env = {"CLAUDE_CONFIG_DIR": str(ctx.home / ".claude"), "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
               "DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
               "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
        if ctx.as_root:
            env["IS_SANDBOX"] = "1"
        if ctx.base_url:
            env["ANTHROPIC_BASE_URL"] = ctx.base_url
        return env

    def launch(self, ctx: LaunchContext, path: Path) -> Launch:
        argv = [str(path), "-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
                "--permission-mode", "bypassPermissions", "--disallowedTools", "WebFetch WebSearch"]
        if ctx.model:
            argv += ["--model", ctx.model]
        if ctx.max_turns:
            argv += ["--max-turns", str(ctx.max_turns)]
        return Launch(argv, self.session_env(ctx), ctx.prompt_file, [_install_root(path)])


class Codex(AgentCLI):
    """OpenAI Codex CLI (``codex exec``), verified with 0.171.0.

    ``exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -C WORKSPACE -`` (the
    prompt on stdin; the harness's jail is the sandbox), ``web_search = "disabled"``, no update check and no
    shell snapshots (``features.shell_snapshot = false``: a snapshot is a dump of the environment, key
    included) in ``$CODEX_HOME/config.toml`` (private home). With ``--base-url`` a provider ``kgb`` (Responses API,
    key from ``--api-key-env``, default ``OPENAI_API_KEY``) is configured and selected.
    """

    name = "codex"
    binary = "codex"
    package = "@openai/codex@0.171.0"
    stream_format = "codex"
    credentials = ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
                   "AZURE_OPENAI_API_KEY")

    def session_env(self, ctx: LaunchContext) -> dict[str, str]:
        return {"CODEX_HOME": str(ctx.home / ".codex")}

    def launch(self, ctx: LaunchContext, path: Path) -> Launch:
        home = ctx.home / ".codex"
        home.mkdir(parents=True, exist_ok=True)
        lines = ['web_search = "disabled"', "check_for_update_on_startup = false"]
        if ctx.base_url:
            lines = ['model_provider = "kgb"', *lines, "", "[model_providers.kgb]", 'name = "kgb"',
                     f"base_url = {json.dumps(ctx.base_url)}",
                     f"env_key = {json.dumps(ctx.api_key_env or 'OPENAI_API_KEY')}",
                     'wire_api = "responses"']
        # shell snapshots dump the whole environment (the API key included) under $CODEX_HOME; a killed
        # session leaves them behind
        lines += ["", "[features]", "shell_snapshot = false"]
        (home / "config.toml").write_text("\n".join(lines) + "\n")
        argv = [str(path), "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
                "-C", str(ctx.workspace)]
        if ctx.model:
            argv += ["-m", ctx.model]
        argv.append("-")
        return Launch(argv, self.session_env(ctx), ctx.prompt_file, [_install_root(path)])


class OpenCode(AgentCLI):
    """OpenCode (``opencode run``), verified with 1.18.33.

    ``run --format json [-m PROVIDER/MODEL] PROMPT`` (tools are approved by default in ``run``). Config
    ``$XDG_CONFIG_HOME/opencode/opencode.json`` in the private home: no auto-update, no sharing, the title
    agent disabled (its request would never reach the JSON stream, so its tokens could not be counted),
    ``webfetch``/``websearch`` denied; with ``--base-url`` a provider ``kgb`` (OpenAI-compatible Chat
    Completions, key from ``--api-key-env``) whose model is ``--model`` (default ``default``).
    """

    name = "opencode"
    binary = "opencode"
    package = "opencode-ai@1.18.33"
    stream_format = "opencode"
    credentials = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
                   "GEMINI_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY", "MISTRAL_API_KEY",
                   "OPENCODE_API_KEY")
    #: the longest prompt passed on the command line (Linux's limit for one argument is 128 KiB)
    max_prompt = 120_000

    def session_env(self, ctx: LaunchContext) -> dict[str, str]:
        h = ctx.home
        env = {"XDG_CONFIG_HOME": str(h / ".config"), "XDG_DATA_HOME": str(h / ".local/share"),
               "XDG_CACHE_HOME": str(h / ".cache"), "XDG_STATE_HOME": str(h / ".local/state"),
               "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1",
               "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1",
               "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}
        if ctx.base_url:
            env["OPENCODE_DISABLE_MODELS_FETCH"] = "1"  # a private provider: models.dev has nothing to add
        return env

    def model_id(self, ctx: LaunchContext) -> str | None:
        if ctx.base_url:
            return f"kgb/{ctx.model or 'default'}"
        return ctx.model

    def launch(self, ctx: LaunchContext, path: Path) -> Launch:
        conf: dict[str, Any] = {"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
                                "agent": {"title": {"disable": True}},
                                "permission": {"webfetch": "deny", "websearch": "deny"}}
        if ctx.base_url:
            key = ctx.api_key_env or "OPENAI_API_KEY"
            model = ctx.model or "default"
            conf["provider"] = {"kgb": {"npm": "@ai-sdk/openai-compatible", "name": "kgb",
                                        "options": {"baseURL": ctx.base_url, "apiKey": f"{{env:{key}}}"},
                                        "models": {model: {"name": model}}}}
            conf["model"] = conf["small_model"] = f"kgb/{model}"
        d = ctx.home / ".config" / "opencode"
        d.mkdir(parents=True, exist_ok=True)
        (d / "opencode.json").write_text(json.dumps(conf, indent=2))
        if len(ctx.prompt.encode()) > self.max_prompt:
            raise AgentError(f"opencode takes its prompt on the command line; this one has {len(ctx.prompt.encode())} "
                             f"bytes (more than {self.max_prompt})")
        argv = [str(path), "run", "--format", "json"]
        model = self.model_id(ctx)
        if model:
            argv += ["-m", model]
        argv.append(ctx.prompt)
        return Launch(argv, self.session_env(ctx), None, [_install_root(path)])


class Gemini(AgentCLI):
    """Gemini CLI (``gemini -p``), verified with 0.61.0.

    ``-o stream-json --approval-mode yolo -p PROMPT``; ``$HOME/.gemini/settings.json`` in the private home:
    API-key auth, folder trust off (an untrusted folder forces the default approval mode), telemetry, usage
    statistics and auto-update off, ``web_fetch``/``google_web_search`` excluded, ``--max-turns`` as
    ``model.maxSessionTurns`` (exit status 53 at the cap). Endpoint: ``GOOGLE_GEMINI_BASE_URL``
    (``--base-url``), key ``GEMINI_API_KEY``.
    """

    name = "gemini"
    binary = "gemini"
    package = "@google/gemini-cli@0.61.0"
    stream_format = "gemini"
    credentials = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI",
                   "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")
    max_prompt = 120_000

    def session_env(self, ctx: LaunchContext) -> dict[str, str]:
        env = {"GEMINI_CLI_NO_RELAUNCH": "true"}
        if ctx.base_url:
            env["GOOGLE_GEMINI_BASE_URL"] = ctx.base_url
        return env

    def launch(self, ctx: LaunchContext, path: Path) -> Launch:
        settings: dict[str, Any] = {
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "telemetry": {"enabled": False}, "privacy": {"usageStatisticsEnabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "tools": {"exclude": ["web_fetch", "google_web_search"]}}
        if ctx.max_turns:
            settings["model"] = {"maxSessionTurns": ctx.max_turns}
        d = ctx.home / ".gemini"
        d.mkdir(parents=True, exist_ok=True)
        (d / "settings.json").write_text(json.dumps(settings, indent=2))
        if len(ctx.prompt.encode()) > self.max_prompt:
            raise AgentError(f"gemini takes its prompt on the command line; this one has {len(ctx.prompt.encode())} "
                             f"bytes (more than {self.max_prompt})")
        argv = [str(path), "-o", "stream-json", "--approval-mode", "yolo"]
        if ctx.model:
            argv += ["-m", ctx.model]
        argv += ["-p", ctx.prompt]
        return Launch(argv, self.session_env(ctx), None, [_install_root(path)])

    def turn_cap_exit(self, code: int | None) -> bool:
        return code == 53


class Command(AgentCLI):
    """Any program: ``--agent command --command TEMPLATE``.

    The template is a shell command line run with ``/bin/sh -c`` in the workspace; ``{prompt}``,
    ``{prompt_file}``, ``{workspace}``, ``{submission}``, ``{check}`` and ``{device}`` are replaced by their
    values, shell-quoted (``{device}`` is ``cpu`` on the interpreter). The prompt is also on stdin, and in
    ``KGB_PROMPT_FILE``, ``KGB_WORKSPACE``, ``KGB_SUBMISSION``, ``KGB_CHECK``, ``KGB_DEVICE``, ``KGB_BUDGET_S``.
    Absolute paths named in the template are made readable in the jail (``--expose`` adds others). No
    credentials pass unless named with ``--env``. Tokens: none, unless ``--stream-format`` says which CLI's
    stream the program prints on stdout.
    """

    name = "command"
    binary = "sh"
    stream_format = ""
    FIELDS = ("prompt", "prompt_file", "workspace", "submission", "check", "device")

    def __init__(self, template: str, stream_format: str | None = None) -> None:
        self.template = template
        self.stream = stream_format
        if stream_format and stream_format not in PARSERS:
            raise AgentError(f"--stream-format {stream_format!r}: expected one of {', '.join(PARSERS)}")
        try:
            self.render(dict.fromkeys(self.FIELDS, "x"))
        except (KeyError, IndexError, ValueError) as exc:
            raise AgentError(f"--command: bad template {template!r}: {exc!r}; it may name "
                             f"{', '.join('{' + f + '}' for f in self.FIELDS)} "
                             f"(write {{{{ and }}}} for braces)") from None

    def render(self, values: dict[str, str]) -> str:
        return self.template.format(**{k: shlex.quote(v) for k, v in values.items()})

    def find(self) -> Path | None:
        return Path("/bin/sh")

    def version(self, path: Path) -> str:
        return "command"

    def named_paths(self) -> list[Path]:
        """Absolute paths the template names that exist (exposed read-only in the jail)."""
        out = []
        try:
            lex = shlex.shlex(self.template, posix=True, punctuation_chars=True)
            lex.whitespace_split = True
            words = list(lex)
        except ValueError:
            words = self.template.split()
        for w in words:
            for part in w.replace("=", " ").split():
                if part.startswith("/") and "{" not in part and Path(part).exists():
                    out.append(Path(part))
        return out

    def session_env(self, ctx: LaunchContext) -> dict[str, str]:
        return {"KGB_PROMPT_FILE": str(ctx.prompt_file), "KGB_WORKSPACE": str(ctx.workspace),
                "KGB_SUBMISSION": str(ctx.submission), "KGB_CHECK": ctx.check,
                "KGB_DEVICE": "cpu" if ctx.device is None else str(ctx.device), "KGB_BUDGET_S": f"{ctx.budget_s:g}"}

    def launch(self, ctx: LaunchContext, path: Path) -> Launch:
        line = self.render({"prompt": ctx.prompt, "prompt_file": str(ctx.prompt_file), "workspace": str(ctx.workspace),
                            "submission": str(ctx.submission), "check": ctx.check,
                            "device": "cpu" if ctx.device is None else str(ctx.device)})
        return Launch(["/bin/sh", "-c", line], self.session_env(ctx), ctx.prompt_file, self.named_paths())

    def parse(self, transcript: Path | None, home: Path | None) -> StreamInfo:
        if self.stream:
            return PARSERS[self.stream](transcript, home)
        from .usage import AgentUsage

        u = AgentUsage(notes=["--agent command: the program reports no tokens (see --stream-format)"])
        return StreamInfo(u)


CLIS: dict[str, Callable[[], AgentCLI]] = {"claude-code": ClaudeCode, "codex": Codex, "opencode": OpenCode,
                                          "gemini": Gemini}
#: every ``--agent`` name
AGENTS = (*CLIS, "command")


def get_agent(name: str, command: str | None = None, stream_format: str | None = None) -> AgentCLI:
    """The adapter of ``--agent NAME``.

    Raises:
        AgentError: an unknown name, ``command`` without a template (or a template for another agent).
    """
    if name == "command":
        if not command:
            raise AgentError("--agent command needs --command TEMPLATE (e.g. --command 'my-agent {prompt_file}')")
        return Command(command, stream_format)
    if command:
        raise AgentError(f"--command is for --agent command, not --agent {name}")
    if name not in CLIS:
        raise AgentError(f"unknown agent {name!r}; expected one of {', '.join(AGENTS)}")
    return CLIS[name]()
