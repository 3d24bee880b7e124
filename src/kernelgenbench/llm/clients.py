"""Model clients over the official SDKs (issue 4, item 3).

* ``openai/NAME``: chat completions through the ``openai`` SDK against any OpenAI-compatible base
  URL (OpenAI, vLLM, SGLang, gateways);
* ``anthropic/NAME``: the Messages API through the ``anthropic`` SDK.

Both SDKs are optional extras (``pip install kernelgenbench[llm]``) and are imported only when a
client is made, never by the evaluation path.

Per request the client records exactly (:class:`Usage`, :class:`Completion`): input tokens,
cached input tokens, cache-write tokens, output tokens, reasoning tokens, wall time, the model id as
served, and the raw usage object. Token fields a provider does not report are ``None`` (not 0).

Retries: 408, 409, 429 and 5xx answers, connection errors and timeouts are retried with exponential
backoff and jitter, honouring ``Retry-After`` (capped), at most ``max_retries`` times; other errors
raise at once. The SDKs' own retries are switched off so every attempt is counted here.
A semaphore per client bounds the requests in flight across threads (``concurrency``).

API keys come only from the environment (``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``, or the
variable named by ``api_key_env``); a local base URL (127.0.0.1, localhost) without a key gets a
dummy key. Keys are held in memory by the SDK client and never written anywhere.
"""
from __future__ import annotations

import abc
import os
import random
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable
from urllib.parse import urlparse

PROVIDERS = ("openai", "anthropic")
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
RETRY_STATUS = {408, 409, 429}
#: Longest wait between attempts, in seconds (also caps a server's Retry-After).
MAX_BACKOFF_S = 60.0


class LLMError(RuntimeError):
    """A request failed for good (after retries, or with an error that is not retried)."""

    def __init__(self, message: str, status: int | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.status = status
        self.attempts = attempts


class LLMAuthError(LLMError):
    """The endpoint refused the credentials (401/403) or no key is configured: stop the run."""


@dataclass
class Usage:
    """Token accounting of one request.

    Attributes:
        input_tokens: every prompt token the request was billed for, cached and cache-written ones
            included (OpenAI ``prompt_tokens``; Anthropic ``input_tokens + cache_read_input_tokens
            + cache_creation_input_tokens``).
        cached_input_tokens: input tokens read from the provider's prompt cache (OpenAI
            ``prompt_tokens_details.cached_tokens``; Anthropic ``cache_read_input_tokens``).
        cache_write_tokens: input tokens written to the prompt cache (Anthropic
            ``cache_creation_input_tokens``; gateways that report it), else None.
        output_tokens: generated tokens, reasoning included (OpenAI ``completion_tokens``;
            Anthropic ``output_tokens``).
        reasoning_tokens: the reasoning part of ``output_tokens`` where reported (OpenAI
            ``completion_tokens_details.reasoning_tokens``), else None.
        raw: the provider's usage object as a JSON-able dict, unchanged.
    """

    input_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    raw: dict[str, Any] | None = None

    @property
    def total_tokens(self) -> int:
        """input + output tokens (0 for fields not reported)."""
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: dict[str, Any] | None) -> "Usage":
        d = d or {}
        return Usage(**{k: d.get(k) for k in ("input_tokens", "cached_input_tokens", "cache_write_tokens",
                                               "output_tokens", "reasoning_tokens", "raw")})


@dataclass
class Completion:
    """One model reply.

    Attributes:
        text: the reply's text (the concatenated text blocks; "" when the model sent none).
        reasoning: reasoning text the server returned separately (``reasoning_content``, thinking
            blocks), else None.
        finish_reason: the provider's reason (``stop``, ``length``, ``end_turn``, ``max_tokens``...).
        truncated: the reply was cut at the token limit.
        model_served: the model id the server reported.
        usage: token accounting.
        wall_s: seconds of the successful attempt.
        total_s: seconds from the first attempt to the answer, retries and backoff included.
        attempts: number of attempts made (1 = no retry).
        request_id: the provider's response id, if any.
    """

    text: str
    reasoning: str | None
    finish_reason: str | None
    truncated: bool
    model_served: str | None
    usage: Usage
    wall_s: float
    total_s: float
    attempts: int
    request_id: str | None = None
    retries: list[dict[str, Any]] = field(default_factory=list)


def _num(v: Any) -> int | None:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _get(d: Any, *path: str) -> Any:
    for k in path:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def openai_usage(raw: dict[str, Any] | None) -> Usage:
    """:class:`Usage` from an OpenAI-style ``usage`` object (chat completions).

    Understands ``prompt_tokens_details.cached_tokens`` (OpenAI, vLLM, SGLang),
    ``prompt_cache_hit_tokens`` (DeepSeek), ``prompt_tokens_details.cache_write_tokens`` and
    ``cache_creation_input_tokens`` (gateways), ``completion_tokens_details.reasoning_tokens``.
    """
    raw = raw or {}
    cached = _num(_get(raw, "prompt_tokens_details", "cached_tokens"))
    if cached is None:
        cached = _num(raw.get("prompt_cache_hit_tokens"))
    write = _num(_get(raw, "prompt_tokens_details", "cache_write_tokens"))
    if write is None:
        write = _num(raw.get("cache_creation_input_tokens"))
    return Usage(input_tokens=_num(raw.get("prompt_tokens")), cached_input_tokens=cached, cache_write_tokens=write,
                 output_tokens=_num(raw.get("completion_tokens")),
                 reasoning_tokens=_num(_get(raw, "completion_tokens_details", "reasoning_tokens")), raw=raw or None)


def anthropic_usage(raw: dict[str, Any] | None) -> Usage:
    """:class:`Usage` from an Anthropic Messages ``usage`` object.

    Anthropic's ``input_tokens`` excludes cache reads and writes; :attr:`Usage.input_tokens` is the
    sum of all three so that it means the same for every provider.
    """
    raw = raw or {}
    base = _num(raw.get("input_tokens"))
    read = _num(raw.get("cache_read_input_tokens"))
    write = _num(raw.get("cache_creation_input_tokens"))
    total = None if base is None else base + (read or 0) + (write or 0)
    return Usage(input_tokens=total, cached_input_tokens=read, cache_write_tokens=write,
                 output_tokens=_num(raw.get("output_tokens")), reasoning_tokens=None, raw=raw or None)


def is_local(base_url: str | None) -> bool:
    """Whether ``base_url`` points at this machine (a dummy key is then acceptable)."""
    if not base_url:
        return False
    host = (urlparse(base_url).hostname or "").lower()
    return host in ("127.0.0.1", "localhost", "::1", "0.0.0.0") or host.startswith("127.")


def resolve_api_key(provider: str, base_url: str | None, api_key_env: str | None = None) -> str:
    """The API key from the environment.

    Raises:
        LLMAuthError: no key in the variable and the endpoint is not local.
    """
    var = api_key_env or DEFAULT_KEY_ENV[provider]
    key = os.environ.get(var)
    if key:
        return key
    if is_local(base_url):
        return "EMPTY"
    raise LLMAuthError(f"no API key: set {var} in the environment (keys are read from the environment only)")


def split_model(model: str) -> tuple[str, str]:
    """``"openai/gpt-4o"`` -> ``("openai", "gpt-4o")``; the name may itself contain slashes.

    Raises:
        ValueError: no provider prefix, or an unknown provider.
    """
    provider, sep, name = model.partition("/")
    if not sep or not name:
        raise ValueError(f"--model must be PROVIDER/NAME with PROVIDER one of {', '.join(PROVIDERS)}; got {model!r}")
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r} in {model!r}; expected one of {', '.join(PROVIDERS)}")
    return provider, name


class _Retryable(Exception):
    def __init__(self, status: int | None, message: str, retry_after: float | None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def _retry_after(exc: Any) -> float | None:
    resp = getattr(exc, "response", None)
    headers = getattr(resp, "headers", None)
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        v = headers.get(name)
        if v is None:
            continue
        try:
            return max(0.0, float(v) * scale)
        except ValueError:
            continue
    return None


class Client(abc.ABC):
    """Base of the provider clients: retries, backoff, the concurrency bound and timing.

    Args:
        model: the model name without the provider prefix.
        base_url: the endpoint (None: the provider's default).
        timeout_s: per-request timeout in seconds.
        max_retries: retries after the first attempt for retryable errors.
        backoff_s: the first backoff in seconds (doubles per retry, with jitter, capped at 60 s).
        concurrency: most requests in flight at once across all threads.
        api_key_env: the environment variable holding the key (default per provider).
        extra_body: provider-specific request fields merged into every request body.
    """

    provider = ""
    # called before each backoff wait as on_retry(label, attempt, attempts, error, wait_s): the CLI prints it, so that
    # minutes of retries against an endpoint that refuses connections are not minutes of silence (fresh user 33)
    on_retry: Callable[[str, int, int, str, float], None] | None = None

    def __init__(self, model: str, base_url: str | None = None, *, timeout_s: float = 600.0, max_retries: int = 6,
                 backoff_s: float = 2.0, concurrency: int = 4, api_key_env: str | None = None,
                 extra_body: dict[str, Any] | None = None, sleep: Callable[[float], None] = time.sleep) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        self.extra_body = dict(extra_body or {})
        self._sem = threading.BoundedSemaphore(max(1, concurrency))
        self._sleep = sleep
        self._key = resolve_api_key(self.provider, base_url, api_key_env)
        self._sdk: Any = None

    def describe(self) -> dict[str, Any]:
        """What identifies the endpoint in ``config.json`` (never the key)."""
        return {"provider": self.provider, "model": self.model, "base_url": self.base_url,
                "timeout_s": self.timeout_s, "max_retries": self.max_retries, "extra_body": self.extra_body}

    def complete(self, system: str, messages: list[dict[str, str]], *, temperature: float, max_tokens: int,
                 label: str = "") -> Completion:
        """Send one request and return the reply.

        Args:
            system: the system message.
            messages: user/assistant turns, ``[{"role", "content"}]``.
            temperature: sampling temperature.
            max_tokens: the output token limit.
            label: names the request in error messages (``vllm::rms_norm s0r1``).

        Raises:
            LLMAuthError: credentials refused.
            LLMError: a non-retryable error, or retries exhausted.
        """
        t0 = time.monotonic()
        retries: list[dict[str, Any]] = []
        attempt = 0
        while True:
            attempt += 1
            with self._sem:
                t1 = time.monotonic()
                try:
                    comp = self._once(system, messages, temperature, max_tokens)
                except _Retryable as exc:
                    retries.append({"attempt": attempt, "status": exc.status, "error": str(exc)[:300],
                                    "after_s": round(time.monotonic() - t1, 3)})
                    if attempt > self.max_retries:
                        raise LLMError(f"{label or self.model}: giving up after {attempt} attempts: {exc}",
                                       exc.status, attempt) from None
                    wait = min(MAX_BACKOFF_S, self.backoff_s * (2 ** (attempt - 1)) * (0.5 + random.random()))
                    if exc.retry_after is not None:
                        wait = min(MAX_BACKOFF_S, max(wait if exc.retry_after > 0 else 0.0, exc.retry_after))
                    retries[-1]["wait_s"] = round(wait, 3)
                    if self.on_retry is not None:
                        self.on_retry(label or self.model, attempt, self.max_retries + 1, str(exc)[:200], wait)
                    wall = None
                else:
                    wall = time.monotonic() - t1
            if wall is not None:
                comp.wall_s = round(wall, 4)
                comp.total_s = round(time.monotonic() - t0, 4)
                comp.attempts = attempt
                comp.retries = retries
                return comp
            self._sleep(wait)

    # -- provider hooks ---------------------------------------------------------------------------
    @abc.abstractmethod
    def _once(self, system: str, messages: list[dict[str, str]], temperature: float, max_tokens: int) -> Completion:
        """One request through the provider's SDK (OpenAIClient, AnthropicClient)."""

    def _classify(self, exc: Exception, sdk: Any) -> Exception:
        """Map an SDK exception to :class:`_Retryable`, :class:`LLMAuthError` or :class:`LLMError`."""
        status = getattr(exc, "status_code", None)
        if isinstance(exc, (sdk.APITimeoutError, sdk.APIConnectionError)):
            return _Retryable(None, f"{type(exc).__name__}: {exc}", None)
        if status is not None and (status in RETRY_STATUS or status >= 500):
            return _Retryable(status, f"HTTP {status}: {exc}", _retry_after(exc))
        if status in (401, 403):
            return LLMAuthError(f"{self.provider} endpoint refused the credentials (HTTP {status}): {exc}", status)
        return LLMError(f"{self.provider} request failed (HTTP {status}): {exc}", status)


class OpenAIClient(Client):
    """Chat completions through the official ``openai`` SDK (any OpenAI-compatible base URL).

    The output limit is sent as ``max_completion_tokens`` to api.openai.com (its reasoning models
    require it) and as ``max_tokens`` elsewhere (what compatible servers understand).
    """

    provider = "openai"

    def _client(self) -> Any:
        if self._sdk is None:
            try:
                import openai
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise LLMError("the openai SDK is not installed: pip install 'kernelgenbench[llm]'") from exc
            self._mod = openai
            self._sdk = openai.OpenAI(api_key=self._key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0)
        return self._sdk

    def _once(self, system: str, messages: list[dict[str, str]], temperature: float, max_tokens: int) -> Completion:
        client = self._client()
        official = not self.base_url or "api.openai.com" in self.base_url
        kw: dict[str, Any] = {"model": self.model, "temperature": temperature,
                              "messages": [{"role": "system", "content": system}, *messages]}
        kw["max_completion_tokens" if official else "max_tokens"] = max_tokens
        if self.extra_body:
            kw["extra_body"] = self.extra_body
        try:
            resp = client.chat.completions.create(**kw)
        except self._mod.APIError as exc:
            raise self._classify(exc, self._mod) from None
        choice = resp.choices[0] if resp.choices else None
        msg = choice.message if choice is not None else None
        text = (msg.content if msg is not None else None) or ""
        extra = (getattr(msg, "model_extra", None) or {}) if msg is not None else {}
        reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        finish = choice.finish_reason if choice is not None else None
        raw = resp.usage.model_dump(exclude_unset=True) if resp.usage is not None else None
        return Completion(text=text, reasoning=reasoning if isinstance(reasoning, str) else None,
                          finish_reason=finish, truncated=finish == "length", model_served=resp.model,
                          usage=openai_usage(raw), wall_s=0.0, total_s=0.0, attempts=1, request_id=resp.id)


class AnthropicClient(Client):
    """The Messages API through the official ``anthropic`` SDK.

    ``base_url`` is the API root (``https://api.anthropic.com``); a trailing ``/v1`` is removed,
    since the SDK adds it.
    """

    provider = "anthropic"

    def _client(self) -> Any:
        if self._sdk is None:
            try:
                import anthropic
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise LLMError("the anthropic SDK is not installed: pip install 'kernelgenbench[llm]'") from exc
            self._mod = anthropic
            base = self.base_url
            if base and base.rstrip("/").endswith("/v1"):
                base = base.rstrip("/")[: -len("/v1")]
            # An explicit timeout also lifts the SDK's refusal of long non-streaming requests.
            self._sdk = anthropic.Anthropic(api_key=self._key, base_url=base, timeout=self.timeout_s, max_retries=0)
            import inspect

            self._takes_temperature = "temperature" in inspect.signature(self._sdk.messages.create).parameters
        return self._sdk

    def _once(self, system: str, messages: list[dict[str, str]], temperature: float, max_tokens: int) -> Completion:
        client = self._client()
        kw: dict[str, Any] = {"model": self.model, "system": system, "messages": messages, "max_tokens": max_tokens}
        body = dict(self.extra_body)
        # Recent SDKs dropped `temperature` from the typed parameters; the API still takes it.
        if self._takes_temperature:
            kw["temperature"] = temperature
        else:
            body.setdefault("temperature", temperature)
        if body:
            kw["extra_body"] = body
        try:
            resp = client.messages.create(**kw)
        except self._mod.APIError as exc:
            raise self._classify(exc, self._mod) from None
        texts, thinking = [], []
        for block in resp.content or []:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
            elif kind == "thinking":
                thinking.append(getattr(block, "thinking", "") or "")
        raw = resp.usage.model_dump(exclude_unset=True) if resp.usage is not None else None
        return Completion(text="".join(texts), reasoning="".join(thinking) or None, finish_reason=resp.stop_reason,
                          truncated=resp.stop_reason == "max_tokens", model_served=resp.model,
                          usage=anthropic_usage(raw), wall_s=0.0, total_s=0.0, attempts=1, request_id=resp.id)


def make_client(model: str, base_url: str | None = None, **kw: Any) -> Client:
    """A client for ``PROVIDER/NAME`` (see :class:`Client` for the keyword arguments).

    Raises:
        ValueError: malformed model or unknown provider.
        LLMAuthError: no API key in the environment for a remote endpoint.
    """
    provider, name = split_model(model)
    cls = OpenAIClient if provider == "openai" else AnthropicClient
    return cls(name, base_url, **kw)
