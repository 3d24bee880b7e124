"""L1's rules on the few names of the allowed standard modules a submission may use (moved out of scanner.py):
of ``os`` reading the environment, of ``contextlib`` three helpers, of ``packaging`` its version parser, of ``abc``
the ABC machinery, of ``logging`` loggers and their log calls, of ``warnings`` ``warn``; and no ``typing`` helper that
evaluates string annotations; of ``threading`` its locks only (tp42). :func:`stdlib_path_finding` judges one dotted path
as the scanner meets it, :func:`import_judged_at_use` the imports of a module whose names are judged one by one."""
from __future__ import annotations

from .policy import (
    ABC_ALLOWED,
    CONTEXTLIB_ALLOWED,
    LOGGING_ALLOWED,
    MODULES_JUDGED_AT_USE,
    OS_ALLOWED,
    PACKAGING_ALLOWED,
    TYPING_EVALUATORS,
    WARNINGS_ALLOWED,
)

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
