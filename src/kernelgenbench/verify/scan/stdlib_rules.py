"""L1's rules on the few names of the allowed standard modules a submission may use (moved out of scanner.py):
of ``os`` reading the environment, of ``contextlib`` three helpers, of ``packaging`` its version parser, of ``abc``
the ABC machinery, of ``logging`` loggers and their log calls, of ``warnings`` ``warn``; and no ``typing`` helper that
evaluates string annotations; of ``threading`` its locks only (tp42); of ``importlib`` a test that a package is
installed only (tp44, :func:`importlib_spec_tests_only`). The sets of allowed names live here (moved from
policy.py, which re-reads MODULES_JUDGED_AT_USE); :func:`stdlib_path_finding` judges one dotted path as the scanner
meets it, :func:`import_judged_at_use` the imports of a module whose names are judged one by one."""
from __future__ import annotations

import ast
import re

#: ``warnings.<name>`` a submission may use: issuing warnings. Catching or filtering them
#: (``catch_warnings(record=True)``) would read back what a launch emitted on the interpreter (NumPy's
#: "invalid value" warnings), which tells a real launch from an L2 ghost replay's no-op.
WARNINGS_ALLOWED: frozenset[str] = frozenset({"warnings.warn"})

#: ``logging.<name>`` a submission may use (false-rejection hunt 35: FlagGems' op files and many kernel libraries
#: start with ``logger = logging.getLogger(__name__)`` and log the path they took): getting a logger, the level
#: constants, the module's own log functions and ``Logger`` in an annotation. Handlers, formatters, filters, the
#: configuration (``logging.config`` builds objects named by strings; ``basicConfig(filename=)`` opens files) and
#: the record factories stay refused; so do, in a file that imports logging, the attributes through which a logger
#: would keep a callable of the submission's to run when anyone logs (:data:`LOGGING_CALLBACK_ATTRS`).
LOGGING_ALLOWED: frozenset[str] = frozenset({
    "logging.getLogger", "logging.Logger", "logging.LoggerAdapter",
    "logging.DEBUG", "logging.INFO", "logging.WARNING", "logging.WARN", "logging.ERROR", "logging.CRITICAL",
    "logging.FATAL", "logging.NOTSET",
    "logging.debug", "logging.info", "logging.warning", "logging.error", "logging.exception", "logging.critical",
    "logging.log",
})

#: Modules outside IMPORT_ALLOWED whose import passes, each name judged where it is used (tp42: threading for its
#: locks, stdlib_rules.py); used as a value such a module is refused as the allowed ones are (is_module_path).
MODULES_JUDGED_AT_USE: frozenset[str] = frozenset({"threading"})
#: What of ``os`` a submission may use: reading environment variables (wrappers pick block sizes by
#: ``TRITON_INTERPRET``, say). Anything else of ``os`` touches files, processes or the environment's values.
OS_ALLOWED: frozenset[str] = frozenset({"os.environ.get", "os.getenv"})
#: What of ``packaging`` a submission may use (false-rejection hunt 37): its version parser, with which Liger-Kernel,
#: Unsloth and many kernel modules gate features on ``Version(triton.__version__) >= Version("3.0")``; it parses
#: strings and compares them. The rest of the package (tags and markers read the platform; metadata, requirements)
#: is refused.
PACKAGING_ALLOWED: frozenset[str] = frozenset({"packaging", "packaging.version", "packaging.version.Version",
                                               "packaging.version.parse", "packaging.version.InvalidVersion"})
#: What of ``contextlib`` a submission may use: the context managers wrappers use around launches (``nullcontext``
#: in place of a device guard, ``contextmanager`` for their own, ``suppress``). The rest reaches the process's state
#: (``chdir``, ``redirect_stdout``/``redirect_stderr``) or keeps callbacks to run later (``ExitStack``,
#: ``AsyncExitStack``, ``closing``), which L1 cannot follow (false-rejection hunt 28: ``contextlib`` was refused as
#: a whole although honest wrappers import it for ``nullcontext``).
CONTEXTLIB_ALLOWED: frozenset[str] = frozenset({"contextlib.nullcontext", "contextlib.contextmanager",
                                                "contextlib.suppress"})
#: What of ``abc`` a submission may use: abstract base classes for its own op objects (``class UnaryOp(abc.ABC)`` with
#: ``@abc.abstractmethod``; false-rejection hunt 31). ``abc.ABCMeta`` is a metaclass like the ones a submission may
#: already write with ``type``, and registering virtual subclasses is what ``numbers.Number.register`` already does;
#: the harness tells types apart with ``type()``. The private helpers (``abc._reset_registry``, ...) are refused.
ABC_ALLOWED: frozenset[str] = frozenset({"abc.ABC", "abc.ABCMeta", "abc.abstractmethod", "abc.abstractclassmethod",
                                         "abc.abstractstaticmethod", "abc.abstractproperty"})
#: ``typing`` members that evaluate string annotations (F, red team 31: ``typing.get_type_hints(f)`` is ``eval`` of
#: ``f``'s string annotations, source L1 never parsed, with ``__import__`` in reach). Rule exec-eval. Private members of
#: the allowed standard modules (``typing._eval_type``, ``dataclasses._create_fn``: exec of built source) are rule
#: introspection; string annotations are scanned as the code they are (:meth:`.scanner._Scanner.visit_Constant`), so
#: evaluators the scan allows (``functools.singledispatch``'s ``register``) see only scanned code.
TYPING_EVALUATORS: frozenset[str] = frozenset({"typing.get_type_hints", "typing.ForwardRef",
                                               "typing.evaluate_forward_ref"})

#: What of ``threading`` a submission may use (tp42): a lock around a launcher's cache fill, as FlagGems' ``LibEntry``
#: serializes a kernel's first compilation (``self.lock = threading.Lock()``, ``with self.lock:``). A lock starts
#: nothing; a lock never released only hangs the submission's own later call (a timeout, never a pass). Threads,
#: timers, events, thread-local storage, hooks (``settrace``, ``excepthook``) and the rest of the module stay refused.
THREADING_ALLOWED: frozenset[str] = frozenset({"threading.Lock", "threading.RLock"})


def import_judged_at_use(module: str) -> bool:
    """Whether importing the dotted ``module`` (``import threading``, or a name in ``from threading import Lock``)
    passes the import rules, its names being judged where they are used (:func:`stdlib_path_finding`)."""
    return module in MODULES_JUDGED_AT_USE or module in THREADING_ALLOWED


def stdlib_path_finding(path: str, *, env_read: bool) -> tuple[str, str] | None:
    """The ``(rule, message)`` of a use of the dotted ``path`` of a standard module beyond what it may use, or None.

    ``env_read`` says the use is ``os.environ`` read as a mapping (``os.environ["X"]``, ``"X" in os.environ``),
    which the scanner has seen around the node."""
    root = path.split(".")[0]
    if root == "os" and path != "os" and path not in OS_ALLOWED and not (path == "os.environ" and env_read):
        return "file-io", (f"uses {path}: of os only os.environ.get and os.getenv (reading an environment variable) "
                           "are allowed")
    if root == "contextlib" and path != "contextlib" and path not in CONTEXTLIB_ALLOWED:
        return "introspection", (f"uses {path}: of contextlib only nullcontext, contextmanager and suppress are "
                                 "allowed (the rest changes the process's state or keeps callbacks for later)")
    if root == "packaging" and path not in PACKAGING_ALLOWED:
        return "forbidden-import", (f"uses {path}: of packaging only packaging.version (Version, parse, "
                                    "InvalidVersion) is allowed")
    if root == "abc" and path != "abc" and path not in ABC_ALLOWED:
        return "introspection", f"uses {path}: of abc only ABC, ABCMeta and the abstract* decorators are allowed"
    if root == "logging" and path != "logging" and path not in LOGGING_ALLOWED:
        return "introspection", (f"uses {path}: of logging only getLogger, the level constants, the log functions "
                                 "(debug, info, warning, error, exception, critical, log) and Logger are allowed "
                                 "(handlers, formatters, filters and the configuration run or build code outside "
                                 "the calls)")
    if root == "warnings" and path != "warnings" and path not in WARNINGS_ALLOWED:
        return "introspection", (f"uses {path}: only warnings.warn is allowed (catching or filtering warnings reads "
                                 "back what a kernel launch emitted)")
    if root == "threading" and path != "threading" and path not in THREADING_ALLOWED:
        return "threads", (f"uses {path}: of threading only Lock and RLock are allowed (a lock around a cache fill); "
                           "submissions must not start threads or keep per-thread state")
    if any(path == e or path.startswith(e + ".") for e in TYPING_EVALUATORS):
        return "exec-eval", (f"uses {path}, which evaluates string annotations: eval of source L1 never scanned "
                             "(red team 31: a string annotation imported the harness's state); annotations are for "
                             "readers, not for evaluation")
    return None


_TOP_LEVEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def importlib_spec_tests_only(tree: ast.Module, binding_counts: dict[str, int]) -> bool:
    """Whether the file's ``import importlib`` (rule dynamic-import) serves only to test that a package is installed
    (tp44: bitsandbytes' Triton kernel modules define their kernels under ``if not is_triton_available():`` with
    ``is_triton_available()`` returning ``importlib.util.find_spec("triton") is not None``). The module imported as
    ``import importlib`` or ``import importlib.util`` (no alias), nothing else binding the name, and every read of it
    ``importlib.util.find_spec("<name>")`` of a literal top-level name (``find_spec`` of a dotted name imports the
    parent package) compared with ``is None``/``is not None``: the result is a bool, and the module spec (its loader
    runs any module's code) never reaches the file. No string of the file may hold the word ``importlib`` (a string
    annotation can be evaluated as code)."""
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and any(
        a.name.split(".")[0] == "importlib" or (a.asname or "") == "importlib" for a in n.names)
        or isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "importlib"]
    if not imports or any(not isinstance(n, ast.Import) or any(
            a.asname is not None or a.name not in ("importlib", "importlib.util") for a in n.names) for n in imports):
        return False
    if binding_counts.get("importlib") != sum(len(n.names) for n in imports):
        return False
    allowed: set[int] = set()
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Is, ast.IsNot))
                and isinstance(n.comparators[0], ast.Constant) and n.comparators[0].value is None):
            continue
        call = n.left
        if isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords \
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str) \
                and _TOP_LEVEL_NAME.fullmatch(call.args[0].value) \
                and isinstance(call.func, ast.Attribute) and call.func.attr == "find_spec" \
                and isinstance(call.func.value, ast.Attribute) and call.func.value.attr == "util" \
                and isinstance(call.func.value.value, ast.Name) and call.func.value.value.id == "importlib":
            allowed.add(id(call.func.value.value))
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "importlib"]
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    strings = any(isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                  and "importlib" in _WORD.findall(n.value) for n in ast.walk(tree))
    return bool(uses) and not strings and all(id(n) in allowed for n in uses)
