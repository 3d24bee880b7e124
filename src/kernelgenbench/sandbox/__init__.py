"""The untrusted side: everything that runs in the sandbox child, next to the submission.

The child imports one submission and runs its candidate on inputs the verifier sends; it only *collects*
evidence (outputs, the ATen ops the candidate ran, Triton launches, host reads, errors, timings). Verdicts
are made by the trusted verifier (``verify/``, ``run/``) from what the child sends back.

Layout:

* :mod:`.child`: the child process: loads the submission, answers the verifier's commands;
* :mod:`.drive`: the candidate of a submission: its wrappers traced and registered, each case's calls;
* :mod:`.state`: the instrumentation state every hook records into, and the L2 replay log;
* :mod:`.host_reads`: host reads of tensor data, counted, logged and replayed (L2);
* :mod:`.launch`: Triton launch hooks: accounting, the launch rule, ghost launches (empty grid on GPUs),
  the verified interpreter rewrite;
* :mod:`.launch_args`: the launch rule (only Triton values reach a kernel; allowed kernel globals);
* :mod:`.interpreter`: patches of the Triton CPU interpreter (autotune, bounds checks, progress counters);
* :mod:`.provenance`: the memory provenance of a candidate call and the marks of allowed ATen ops;
* :mod:`.dispatch`: the ATen dispatch trace (``CandidateMode``, ``TimedTraceMode``), the traced wrapper,
  the interpreter's ``InterceptMode``;
* :mod:`.runner`: the verifier's end: starts, talks to and kills the child (runs in the trusted process).

The hooks are installed by :mod:`.child` before the submission is imported; importing these modules
installs nothing.
"""
