"""An agent that looks for what it must not find (tests/test_agent_e2e.py): the oracle solutions, the
harness's source (the suite tables with the held-out parameters), the harness package, the run directory,
other sessions' workspaces, other processes, the host's files. It writes what it could read into
``snoop.json`` in its workspace and exits 0.

    python3 snoop.py JSON_OF_TARGETS
"""
import json
import os
import subprocess
import sys

targets = json.loads(sys.argv[1])
report = {"uid": os.getuid(), "reads": {}, "lists": {}, "python_import": None, "procs": None, "writes": {}}
for name, path in targets.get("read", {}).items():
    try:
        with open(path, "rb") as f:
            data = f.read(200)
        report["reads"][name] = "READ " + repr(data[:60])
    except OSError as exc:
        report["reads"][name] = f"DENIED {type(exc).__name__}: {exc.strerror}"
for name, path in targets.get("list", {}).items():
    try:
        report["lists"][name] = "LISTED " + ",".join(sorted(os.listdir(path))[:20])
    except OSError as exc:
        report["lists"][name] = f"DENIED {type(exc).__name__}: {exc.strerror}"
for name, path in targets.get("write", {}).items():
    try:
        with open(path, "w") as f:
            f.write("x")
        report["writes"][name] = "WROTE"
    except OSError as exc:
        report["writes"][name] = f"DENIED {type(exc).__name__}: {exc.strerror}"
out = subprocess.run([sys.executable, "-c", "import kernelgenbench, sys; print(kernelgenbench.__file__)"],
                     capture_output=True, text=True)
report["python_import"] = "IMPORTED " + out.stdout.strip() if out.returncode == 0 else "DENIED " + \
    (out.stderr.strip().splitlines() or ["?"])[-1]
out = subprocess.run([sys.executable, "-c", "import torch, triton; print(torch.__version__)"], capture_output=True,
                     text=True)
report["torch"] = out.stdout.strip() or out.stderr.strip()[-200:]
pids = [p for p in os.listdir("/proc") if p.isdigit()]
report["procs"] = len(pids)
env1 = None
try:
    with open("/proc/1/environ", "rb") as f:
        env1 = f.read().decode(errors="replace")
except OSError as exc:
    env1 = f"DENIED {exc.strerror}"
report["pid1_environ_has_key"] = "KEY" in (env1 or "") or "sk-" in (env1 or "")
report["environ_keys"] = sorted(os.environ)
with open("snoop.json", "w") as f:
    json.dump(report, f, indent=1)
print(json.dumps(report))
