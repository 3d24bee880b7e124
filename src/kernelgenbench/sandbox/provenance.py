"""The memory provenance of a candidate call (:class:`CallEvidence`) and the marks it gives the trace
keys of allowed ATen ops (:func:`op_marks`).

Allowed ops that compute, convert or move elements along a mapping of the candidate's making are marked
in their keys (:func:`op_marks`), from the call's memory provenance (:class:`CallEvidence`: the call's
tensors as given, storages allocated in the call, storages its launches received), which also marks host
reads of Triton-derived memory (L2) and finds returned outputs that outlive their call. The dispatch
modes (:mod:`.dispatch`) keep the evidence; ``verify/profile.py`` judges the marks.
"""
from __future__ import annotations

import weakref
from typing import Any

import torch

from ..verify.profile import (
    MARK_BYTES,
    MARK_CONJ,
    MARK_CONVERSION,
    MARK_MAPPING,
    MARK_NEG,
    MARK_PARTIAL_FILL,
    MARK_UNPACK,
    MARK_VALUES,
)

# -- memory provenance of a candidate call ------------------------------------------------------------
#
# Per candidate call (the outermost traced wrapper call; :class:`CallEvidence`) the dispatch modes
# (:mod:`.dispatch`) keep what the verifier's rules about memory need, as evidence (never a verdict):
#
# * the layouts of the call's tensors as given, the storages allocated during the call (``fresh``), the
#   storages its Triton launches received (``launched``) and ATen copies of them (``derived``);
# * marks on the trace keys of allowed ops that compute or convert (``aten::clone (materialises a
#   negative bit)``) or that move elements along a mapping of the candidate's making (``aten::copy_
#   (non-trivial mapping)``), judged by ``verify/profile.py``;
# * host reads of Triton-derived memory (L2, :func:`host_read`), returned outputs in storage that
#   outlives its call (:meth:`CallEvidence.stale_returns`), tensor data built from host Python
#   (``aten::host_data``, elements).

#: ATen copies (their element mapping is judged), fills, and ops that turn host Python data into a tensor
#: (``torch.tensor``, ``torch.as_tensor``, a Python number assigned into a tensor: counted as
#: ``aten::host_data`` elements).
COPY_OPS = frozenset({"copy_", "clone", "contiguous", "_to_copy", "_copy_from", "_copy_from_and_resize"})
FILL_OPS = frozenset({"fill_", "zero_"})
HOST_DATA_OPS = frozenset({"lift_fresh", "lift_fresh_copy", "lift"})
#: Bytes of host-built tensor data that count as one unit of L3's host-data budget (``aten::host_data``).
HOST_DATA_UNIT = 4


def host_data_units(t: torch.Tensor) -> int:
    """What tensor data built from host Python (``torch.tensor``, an assigned number) counts against L3's host-data
    budget: its elements, or its bytes in :data:`HOST_DATA_UNIT`-byte units where those are more (session 38: 64
    int64 elements carried 256 packed fp16 answers, 64 complex128 ones 256 fp32 answers, as 64 elements)."""
    n = t.numel()
    return max(n, -(-n * t.element_size() // HOST_DATA_UNIT))
#: ops that write a Python fill value into a new or given tensor, and the position of the value
_FILL_VALUE_AT = {"full": 1, "full_like": 1, "new_full": 2, "fill_": 1, "scalar_tensor": 0}
#: memory formats under which a functional copy keeps the element mapping (the result is dense in the
#: source's logical order, or in its own dense layout)
_PLAIN_FORMATS = (None, torch.preserve_format, torch.contiguous_format)
#: ops not counted in the trace: ``detach_`` after ``lift_fresh`` reaches a mode only inside another
#: mode's handler (the interpreter's path), and only drops autograd history
_UNCOUNTED = frozenset({"detach_"})


def _name(func: Any) -> str:
    return func._schema.name.split("::")[-1]


def _tensors(obj: Any, path: str = "") -> Any:
    """``(path, tensor)`` for every tensor in nested lists, tuples and dicts (``"[0][1]"``), told apart by ``type()``
    (``isinstance`` would read an object's ``__class__``, which a submission's class can make a property that runs
    its code: red team 30)."""
    t = type(obj)
    if issubclass(t, torch.Tensor):
        yield path, obj
    elif issubclass(t, (list, tuple)):
        for i, v in enumerate(list.__iter__(obj) if issubclass(t, list) else tuple.__iter__(obj)):
            yield from _tensors(v, f"{path}[{i}]")
    elif issubclass(t, dict):
        for k, v in dict.items(obj):
            yield from _tensors(v, f"{path}[{k!r}]" if type(k) in (str, int) else f"{path}[{type(k).__name__}]")


def _storage(t: Any) -> Any:
    """``t``'s untyped storage, or None (no storage: sparse, nested, functional wrappers)."""
    try:
        return t.untyped_storage()
    except Exception:  # noqa: BLE001 - a tensor without a plain storage
        return None


def _no_modes() -> Any:
    """A context in which the harness's own ops reach no dispatch mode (neither the candidate's trace nor, on
    the interpreter, the routing of the operator under test to the candidate's wrapper)."""
    from torch.utils._python_dispatch import _disable_current_modes

    return _disable_current_modes()


def _bytes_of(st: Any) -> torch.Tensor:
    """The bytes of storage ``st`` as a uint8 tensor on its device (a view: no copy)."""
    return torch.empty(0, dtype=torch.uint8, device=st.device).set_(st)


def layout_form(t: torch.Tensor) -> tuple[int, int, tuple[tuple[int, int], ...]] | None:
    """The bytes a strided tensor addresses, in its row-major order, in a canonical form:
    ``(storage data pointer, byte offset, ((size, byte stride), ...))``, outermost first, with size-1
    dims dropped, the element's bytes as the innermost dim ``(element size, 1)``, and each dim merged
    into the next inner one where it steps exactly over it. Two tensors with the same form enumerate
    the same bytes in the same order: one is a reshape of the other, or a dtype view of the same
    layout (``view(torch.uint8)`` of bools, ``view_as_real``). None for an empty tensor or one without
    a plain storage."""
    if t.numel() == 0:
        return None
    st = _storage(t)
    if st is None:
        return None
    esz = t.element_size()
    merged: list[list[int]] = [[esz, 1]]  # innermost first
    for size, stride in reversed(list(zip(t.shape, t.stride()))):
        if size == 1:
            continue
        stride *= esz
        inner = merged[-1]
        if stride == inner[0] * inner[1]:
            inner[0] *= size
        else:
            merged.append([size, stride])
    return st.data_ptr(), t.storage_offset() * esz, tuple((s, d) for s, d in reversed(merged))


#: storage data pointer -> (a weak reference to the storage, the element size it was allocated or given
#: with): a view of other element size that splits those elements is a reinterpretation of bytes
_NATIVE: dict[int, tuple[Any, int]] = {}


def _alive(table: dict[int, Any], ptr: int) -> bool:
    """Whether ``table`` holds a live storage at ``ptr`` (entries are weak: a freed storage, whose
    address a later allocation may reuse, no longer counts)."""
    ref = table.get(ptr)
    if ref is None:
        return False
    st = (ref[0] if isinstance(ref, tuple) else ref)()
    return st is not None and st.data_ptr() == ptr


def _note_native(t: torch.Tensor) -> None:
    st = _storage(t)
    if st is not None and st.nbytes():
        _NATIVE[st.data_ptr()] = (weakref.ref(st), t.element_size())


def splits_elements(t: torch.Tensor) -> bool:
    """Whether ``t`` views its storage with a smaller element than the storage was made with and cuts
    those elements apart (``x.view(torch.int16)[..., 1::2]`` of a float32 ``x``: its high halves). A
    copy that moves such pieces converts (truncation, byte extraction); moving whole elements does not
    (``view_as_real`` of a transposed complex tensor)."""
    st = _storage(t)
    if st is None or not st.nbytes() or not _alive(_NATIVE, st.data_ptr()):
        return False
    native = _NATIVE[st.data_ptr()][1]
    form = layout_form(t)
    if form is None or native <= t.element_size():
        return False
    _, offset, dims = form
    run, step = dims[-1]
    if step != 1 or run % native:
        return True
    return offset % native != 0 or any(d % native for _, d in dims[:-1])


def _holds_chunks_of(st: Any, src: Any, width: int = 32, samples: int = 8) -> bool:
    """Whether storage ``st`` holds, anywhere, a verbatim copy of one of ``samples`` chunks of ``width`` bytes
    spread over storage ``src`` (chunks of fewer than 4 distinct byte values, such as runs of zeros, are skipped:
    a fresh buffer may hold those by chance). Red team 26b laundered packed words through a Triton memcpy into a
    buffer larger than the words, at an offset: the size rule missed it, the contents do not."""
    with _no_modes():
        have = _bytes_of(st).cpu().numpy().tobytes()
        want = _bytes_of(src).cpu().numpy().tobytes()
    n = len(want)
    w = min(width, n)
    if w < 4 or len(have) < w:
        return False
    for i in range(samples):
        start = (i * (n - w)) // max(1, samples - 1)
        chunk = want[start:start + w]
        if len(set(chunk)) >= 4 and chunk in have:
            return True
    return False


#: integer dtypes by (signed, bits), for :func:`_widens_losslessly`
_INT_KINDS = {torch.bool: (False, 1), torch.uint8: (False, 8), torch.int8: (True, 8), torch.int16: (True, 16),
              torch.int32: (True, 32), torch.int64: (True, 64)}


def _widens_losslessly(src: torch.dtype, dst: torch.dtype) -> bool:
    """Whether every value of integer (or bool) dtype ``src`` is exact in integer dtype ``dst`` and the conversion
    only widens it (int32 -> int64, uint8 -> int16, bool -> uint8): no value changes."""
    a, b = _INT_KINDS.get(src), _INT_KINDS.get(dst)
    if a is None or b is None:
        return False
    (s_signed, s_bits), (d_signed, d_bits) = a, b
    return not (s_signed and not d_signed) and d_bits > s_bits


class CallEvidence:
    """The memory provenance of one candidate call (the outermost traced wrapper call, or the
    submission's import), kept by the sandbox's dispatch modes (weak references only: it keeps no
    memory alive).

    Attributes:
        given: :func:`layout_form` of every tensor the wrapper was called with (lists and tuples of
            tensors included), as given.
        readonly: storage data pointers of the case's read-only inputs (``State.readonly_inputs``).
        fresh: storages allocated during the call (by the candidate's ATen ops), by data pointer.
        launched: storages that a Triton launch of this call received (tensor arguments, elements of
            tuples, the base of tensor descriptors and ``triton.reinterpret`` wrappers).
        derived: storages written by ATen copies of ``launched`` (or ``derived``) memory.
        packed: storages holding packed data, with the element size the packed bytes were given in: those
            of the operator's packed arguments (``Operator.packed_args``) and every storage an ATen copy or
            fill of packed data wrote (transitively), whatever element the buffer was made with.
        args, copied_in, snapshots: argument storages and ATen copies of non-Triton memory, and their bytes
            when a launch first received them: such memory is Triton-derived only once a launch changed it.
        last_read: ``(value, dtype)`` of the scalar host read just made, for the op that follows it
            (a fill with that value converts it when the dtypes differ); None otherwise.
        kernel_errors: interpreted launches of the call whose kernel raised.
    """

    def __init__(self, args: Any = (), kwargs: Any = None, readonly: frozenset[int] = frozenset(),
                 packed: Any = (), selectors: Any = ()) -> None:
        tensors = [t for _, t in _tensors((args, kwargs or {}))]
        self.given = {f for f in (layout_form(t) for t in tensors) if f is not None}
        self.readonly = readonly
        self.fresh: dict[int, Any] = {}
        self.launched: dict[int, Any] = {}
        self.derived: dict[int, Any] = {}
        self.last_read: tuple[Any, torch.dtype] | None = None
        #: interpreted launches of this call that raised (``"kernel (ExceptionType)"``), whatever the
        #: wrapper did with the exception (``dispatch.py`` fails a call that returns after one)
        self.kernel_errors: list[str] = []
        #: storages of the call's tensor arguments, and storages written by an ATen copy of memory no Triton
        #: launch of the call wrote (an input's clone): what a launch may receive without writing
        self.args = {st.data_ptr() for st in (_storage(t) for t in tensors) if st is not None and st.nbytes()}
        #: the smallest element size the call's tensor arguments give each of their storages (a storage two
        #: arguments share: the smaller), and over all of them: what :meth:`read_units` charges a host read by
        self.arg_sizes: dict[int, int] = {}
        for t in tensors:
            st = _storage(t)
            if st is not None and st.nbytes():
                self.arg_sizes[st.data_ptr()] = min(self.arg_sizes.get(st.data_ptr(), 1 << 10), t.element_size())
        self.call_size = min(self.arg_sizes.values(), default=None)
        self.copied_in: dict[int, Any] = {}
        #: bytes of such storages as the first launch that received them found them (correctness runs only)
        self.snapshots: dict[int, torch.Tensor] = {}
        for t in tensors:
            _note_native(t)
        #: storages of the selecting operands (``Operator.selector_args``: an index, a mask)
        self.selectors = {st.data_ptr() for st in (_storage(t) for _, t in _tensors(selectors))
                          if st is not None and st.nbytes()}
        self.packed: dict[int, tuple[Any, int]] = {}
        #: storages allocated in the call that a launch received beside packed data and that are not known to
        #: hold it: judged by their contents when an ATen copy reads them (:meth:`packed_size`)
        self.maybe_packed: dict[int, tuple[Any, list[tuple[Any, int]]]] = {}
        for _, t in _tensors(packed):
            st = _storage(t)
            if st is not None and st.nbytes():
                self.packed[st.data_ptr()] = (weakref.ref(st), t.element_size())

    def lays_out_selector(self, src: torch.Tensor, dst: torch.Tensor | None = None) -> bool:
        """Whether a copy from ``src`` into ``dst`` (None: a clone) only lays out a selecting operand: ``src``
        lives in an index or mask argument's storage and the copy writes a buffer of the call's own, not a call
        tensor (materialising a broadcast mask moves none of the operator's data)."""
        st = _storage(src)
        if st is None or st.data_ptr() not in self.selectors:
            return False
        if _alive(self.launched, st.data_ptr()):
            # a launch received it: it may hold what a kernel wrote there (red team 26b: the moved data passed
            # through the index's storage); still the selector only where its bytes are as the first launch found
            snap = self.snapshots.get(st.data_ptr())
            if snap is None:
                return False
            with _no_modes():
                now = _bytes_of(st)
                if now.numel() != snap.numel() or not bool(torch.equal(now, snap)):
                    return False
        if dst is None:
            return True
        dst_st = _storage(dst)
        return dst_st is not None and _alive(self.fresh, dst_st.data_ptr()) and dst_st.data_ptr() not in self.args

    def packed_size(self, t: Any) -> int | None:
        """The element size the packed bytes in ``t``'s storage were given in, or None where ``t`` holds no
        packed data (not a tensor, no storage, a storage no packed argument or copy of one wrote)."""
        if not isinstance(t, torch.Tensor):
            return None
        st = _storage(t)
        if st is None or not st.nbytes():
            return None
        ptr = st.data_ptr()
        if not _alive(self.packed, ptr):
            if not _alive(self.maybe_packed, ptr):
                return None
            for src_ref, esz in self.maybe_packed[ptr][1]:
                src = src_ref()
                if src is not None and _holds_chunks_of(st, src):
                    self.packed[ptr] = (weakref.ref(st), esz)
                    break
            else:
                return None
        return self.packed[ptr][1]

    def unpacks(self, src: torch.Tensor, mapping: bool, *others: torch.Tensor) -> bool:
        """Whether a copy (or fill) from ``src`` into ``others`` rearranges or reinterprets packed bytes:
        ``src`` holds packed data and the copy moves it along a non-trivial element mapping (``mapping``),
        or a side views it with another element size than the packed bytes were given in (a uint8 buffer
        made to launder int32 words still holds int32 words)."""
        esz = self.packed_size(src)
        if esz is None:
            return False
        return mapping or any(t.element_size() != esz for t in (src, *others) if isinstance(t, torch.Tensor))

    # -- what a side of a copy is ---------------------------------------------------------------
    def side_ok(self, t: torch.Tensor) -> bool:
        """Whether ``t``, one side of a copy or fill, keeps the element mapping trivial: empty, a call
        tensor exactly as given (or a reshape / same-layout dtype view of one: the same bytes in the same
        order), or the whole of a storage allocated during this call, densely in row-major order from
        its start. Any other view (a slice, select, transpose, permute, expand, unfold, diagonal,
        as_strided of a call tensor or of a fresh buffer) is the candidate's own element mapping."""
        if t.numel() == 0:
            return True
        form = layout_form(t)
        if form is None:
            return False
        if form in self.given:
            return True
        ptr = form[0]
        if not _alive(self.fresh, ptr):
            return False
        return form[1:] == (0, ((self.fresh[ptr]().nbytes(), 1),))

    # -- Triton launches and what they touched --------------------------------------------------
    def note_launch(self, args: tuple, kwargs: dict, snapshot: bool = False) -> None:
        """Record the storages a Triton launch of this call received. With ``snapshot`` (a correctness run:
        host reads are judged), keep the bytes of each argument storage, or ATen copy of non-Triton memory,
        that no launch received before: a read of it counts as Triton-derived only where a launch changed
        it (a no-op launch on a clone of an input does not make the input the kernel's work)."""
        seen: list[torch.Tensor] = []

        def visit(v: Any, depth: int = 0) -> None:
            if depth > 8:
                return
            if isinstance(v, torch.Tensor):
                st = _storage(v)
                if st is not None and st.nbytes():
                    ptr = st.data_ptr()
                    if snapshot and ptr not in self.snapshots and ptr not in self.launched and \
                            (ptr in self.args or _alive(self.copied_in, ptr)):
                        with _no_modes():
                            self.snapshots[ptr] = _bytes_of(st).clone()
                    self.launched[ptr] = weakref.ref(st)
                    seen.append(v)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    visit(x, depth + 1)
            else:  # a tensor descriptor or triton.reinterpret wrapper (the launch rule let only those in)
                attrs = getattr(v, "__dict__", None)
                if isinstance(attrs, dict) and attrs.get("base") is not None:
                    visit(attrs["base"], depth + 1)

        for v in (*args, *kwargs.values()):
            visit(v)
        self._launch_spreads_packed(seen)
        # the recursive closure is a reference cycle (visit -> its cell -> visit) holding ``seen``: broken here, so
        # that the launch's tensors die with the call, not at the child's next collection (red team 29b)
        seen.clear()
        visit = None  # noqa: F841

    def _launch_spreads_packed(self, tensors: list[torch.Tensor]) -> None:
        """A launch that received packed data may have copied it: every integer buffer allocated during the call
        that the launch also received, no larger than the packed storage it received, counts as packed data in
        the packed storage's element size from now on (red team 26: a Triton memcpy of the packed words into a
        fresh uint8 buffer, then an ATen permute of its bytes, unpacked with ATen behind a Triton copy). A buffer
        larger than every packed storage of the launch (an unpacking that widens: 4-bit values to int8) and
        floating-point buffers (dequantised weights, results) are the kernel's own output, not packed."""
        def known(t: torch.Tensor) -> int | None:
            # packed as far as already established: no content check of a candidate here, on every launch
            st = _storage(t)
            return self.packed[st.data_ptr()][1] if st is not None and _alive(self.packed, st.data_ptr()) else None

        packed = [(known(t), _storage(t)) for t in tensors]
        sources = [(esz, st) for esz, st in packed if esz is not None and st is not None]
        if not sources:
            return
        for t, (esz, st) in zip(tensors, packed):
            if esz is not None or st is None:
                continue
            ptr = st.data_ptr()
            if not _alive(self.fresh, ptr):
                continue
            small_int = not (t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool)
            fits = [s_esz for s_esz, src in sources if small_int and st.nbytes() <= src.nbytes()]
            if fits:
                self.packed[ptr] = (weakref.ref(st), fits[0])
            else:  # larger, or not an integer buffer: packed if it turns out to hold a copy of packed bytes
                self.maybe_packed[ptr] = (weakref.ref(st), [(weakref.ref(src), s_esz) for s_esz, src in sources])

    def triton_derived(self, t: torch.Tensor) -> bool:
        """Whether ``t`` lives in memory a Triton launch of this call received (other than a read-only
        input of the case) or in an ATen copy of such memory."""
        st = _storage(t)
        if st is None or not st.nbytes():
            return False
        ptr = st.data_ptr()
        if _alive(self.derived, ptr):
            return True
        if not _alive(self.launched, ptr) or ptr in self.readonly:
            return False
        snap = self.snapshots.get(ptr)
        if snap is not None:
            with _no_modes():
                now = _bytes_of(st)
                same = now.numel() == snap.numel() and bool(torch.equal(now, snap))
            if same:
                return False  # no launch changed it: still the input (or the copy of one) it was
        return True

    def read_units(self, t: torch.Tensor) -> int:
        """What a host read of all of ``t`` counts against L3's host-read budget (``aten::host_read_widened``
        holds the excess over ``t.numel()``): its elements, or, where more, its bytes in elements of the data
        those bytes may hold. A storage of the call's arguments that nothing of the call wrote (no launch
        changed it, no ATen copy wrote it) holds its arguments' dtype, and a buffer allocated in the call that no
        launch received and no ATen copy wrote holds what its factory made (zeros, a random seed) in its own;
        any other memory (a Triton copy, a buffer kept across calls, an argument a launch or a copy wrote) may
        hold any argument's bytes, packed by a kernel or a dtype view, so it counts in the call's smallest
        argument element. An ``.item()`` of a
        complex128 view of fp32 data carries four elements and counts four; an int64 length read from an int64
        argument counts one (session 38: reads through wider views carried up to 16 bytes per counted read)."""
        n = max(1, t.numel())
        esz = t.element_size()
        st = _storage(t)
        size = self.call_size
        if st is not None and st.nbytes():
            ptr = st.data_ptr()
            copied = _alive(self.copied_in, ptr) or _alive(self.derived, ptr)
            if ptr in self.arg_sizes and not copied and not self.triton_derived(t):
                size = self.arg_sizes[ptr]
            elif _alive(self.fresh, ptr) and not copied and not _alive(self.launched, ptr):
                size = esz
        size = esz if size is None else min(size, esz)
        return max(n, -(-n * esz // size))

    # -- around each ATen op --------------------------------------------------------------------
    def take_read(self) -> tuple[Any, torch.dtype] | None:
        read, self.last_read = self.last_read, None
        return read

    @staticmethod
    def input_ptrs(args: tuple, kwargs: dict) -> set[int]:
        """Data pointers of the storages an op gets (tensor and storage arguments), before it runs."""
        ptrs: set[int] = set()

        def visit(v: Any) -> None:
            if isinstance(v, torch.Tensor):
                st = _storage(v)
                if st is not None:
                    ptrs.add(st.data_ptr())
            elif isinstance(v, (torch.UntypedStorage, torch.TypedStorage)):
                ptrs.add(v.data_ptr())
            elif isinstance(v, (list, tuple)):
                for x in v:
                    visit(x)

        for v in (*args, *kwargs.values()):
            visit(v)
        return ptrs

    def after_op(self, func: Any, args: tuple, kwargs: dict, out: Any, before: set[int],
                 read: tuple[Any, torch.dtype] | None) -> list[str]:
        """Update the evidence after an op ran: storages it allocated (an output storage none of its
        arguments had before it ran; a ``resize_`` that reallocated included) are fresh, a copy of
        Triton-derived memory is Triton-derived. Returns marks that only the result shows: a functional
        copy that materialised a negative or conjugate bit, a fill or ``torch.tensor`` whose value is
        the scalar host read just made (``read``) of a tensor of another dtype (a conversion)."""
        name = _name(func)
        marks: list[str] = []
        outs = [t for _, t in _tensors(out)]
        for t in outs:
            st = _storage(t)
            if st is not None and st.nbytes() and st.data_ptr() not in before:
                self.fresh[st.data_ptr()] = weakref.ref(st)
                _NATIVE[st.data_ptr()] = (weakref.ref(st), t.element_size())
        if name in COPY_OPS and args and isinstance(args[0], torch.Tensor):
            src = args[1] if name == "copy_" and len(args) > 1 else args[0]
            dsts = [args[0]] if name == "copy_" else ([args[1]] if name.startswith("_copy_from") else outs)
            if isinstance(src, torch.Tensor):
                table = self.derived if self.triton_derived(src) else self.copied_in
                esz = self.packed_size(src)
                for d in dsts:
                    st = _storage(d)
                    if st is not None and st.nbytes():
                        table[st.data_ptr()] = weakref.ref(st)
                        if esz is not None:  # a copy of packed data is packed data, in the element it was given in
                            self.packed[st.data_ptr()] = (weakref.ref(st), esz)
                if name in ("clone", "_to_copy", "contiguous") and isinstance(out, torch.Tensor):
                    if src.is_neg() and not out.is_neg():
                        marks.append(MARK_NEG)
                    if src.is_conj() and not out.is_conj():
                        marks.append(MARK_CONJ)
        if name == "fill_" and len(args) > 1 and isinstance(args[0], torch.Tensor):
            esz = self.packed_size(args[1])
            st = _storage(args[0])
            if esz is not None and st is not None and st.nbytes():
                self.packed[st.data_ptr()] = (weakref.ref(st), esz)
        if read is not None and (name in _FILL_VALUE_AT or name in HOST_DATA_OPS) and isinstance(out, torch.Tensor):
            value, dtype = read
            fill = _fill_value(name, args)
            if out.dtype != dtype and _same_number(fill, value):
                marks.append(MARK_CONVERSION)
        return marks

    # -- what a call returned -------------------------------------------------------------------
    def stale_returns(self, ret: Any, args: tuple, kwargs: dict) -> list[str]:
        """The returned tensors (paths into the return: ``""``, ``"[1]"``) that live in storage neither
        allocated during this call nor shared with an argument (as the arguments are now: an ``out=``
        resized during the call is its argument): a buffer kept across calls (a module-level pool, a
        workspace made on an earlier call), so that successive results alias each other. Empty
        tensors are never stale."""
        arg_ptrs = {st.data_ptr() for _, t in _tensors((args, kwargs)) for st in [_storage(t)] if st is not None}
        stale = []
        for path, t in _tensors(ret):
            st = _storage(t)
            if st is None or not st.nbytes():
                continue
            ptr = st.data_ptr()
            if ptr in arg_ptrs or _alive(self.fresh, ptr):
                continue
            stale.append(path or "the result")
        return stale


def _fill_value(name: str, args: tuple) -> Any:
    """The Python value a fill-like op writes (``full``'s fill_value; the one element of a
    ``lift_fresh`` tensor), or None."""
    if name in HOST_DATA_OPS:
        t = args[0] if args else None
        if isinstance(t, torch.Tensor) and t.numel() == 1 and t.device.type == "cpu":
            return t.item()
        return None
    at = _FILL_VALUE_AT.get(name)
    return args[at] if at is not None and len(args) > at else None


def _same_number(a: Any, b: Any) -> bool:
    return (isinstance(a, (bool, int, float, complex)) and isinstance(b, (bool, int, float, complex))
            and a == b)


def _arange_computes(args: tuple, kwargs: dict) -> bool:
    """Whether an ``arange`` computes values beyond an integer sequence (a floating or complex result,
    or a non-integral start, end or step)."""
    nums = [a for a in args if isinstance(a, (int, float))]
    if any(isinstance(a, float) and not float(a).is_integer() for a in nums):
        return True
    out = kwargs.get("out")
    dt = kwargs.get("dtype") or (out.dtype if isinstance(out, torch.Tensor) else None)
    if dt is not None:
        return dt.is_floating_point or dt.is_complex
    return any(isinstance(a, float) for a in nums)


def op_marks(func: Any, args: tuple, kwargs: dict, ev: CallEvidence | None) -> list[str]:
    """What an allowed op does beyond allocating, viewing, moving or reading, seen before it runs (the
    marks of its trace key; :data:`~kernelgenbench.verify.profile.COMPUTE_MARKS` fail every operator,
    :data:`~kernelgenbench.verify.profile.MOVE_MARKS` operators whose work is data movement):

    * copies (``copy_``, ``_copy_from*``, ``clone``, ``_to_copy``): a dtype change; a source and
      destination whose negative or conjugate bits differ (the copy negates or conjugates); a
      non-trivial element mapping (a side that is not :meth:`CallEvidence.side_ok`, sides of other
      shapes (a broadcast), a memory format other than preserve/contiguous), and among those, a side
      that cuts the storage's elements apart (:func:`splits_elements`); a source holding packed data
      (:meth:`CallEvidence.unpacks`: along such a mapping, or through a view of another element size);
    * fills (``fill_``, ``zero_``): from a tensor of another dtype or with a negative/conjugate bit, into
      a view with such a bit, or into a part of a call tensor or of a fresh buffer (a partial fill); from a
      tensor holding packed data (:meth:`CallEvidence.unpacks`);
    * ``arange`` of floating values or with non-integral bounds (it computes them).
    """
    name = _name(func)
    marks: list[str] = []
    try:
        if name in ("copy_", "_copy_from", "_copy_from_and_resize"):
            dst, src = (args[0], args[1]) if name == "copy_" else (args[1], args[0])
            if isinstance(src, torch.Tensor) and isinstance(dst, torch.Tensor):
                if src.dtype != dst.dtype:
                    marks.append(MARK_CONVERSION)
                if src.is_neg() != dst.is_neg():
                    marks.append(MARK_NEG)
                if src.is_conj() != dst.is_conj():
                    marks.append(MARK_CONJ)
                resized = name == "_copy_from_and_resize" and dst.numel() == 0
                mapping = ev is not None and ((tuple(src.shape) != tuple(dst.shape) and not resized)
                                              or not ev.side_ok(src) or not ev.side_ok(dst))
                if mapping and not ev.lays_out_selector(src, dst):
                    marks.append(MARK_MAPPING)
                if mapping and (splits_elements(src) or splits_elements(dst)):
                    marks.append(MARK_BYTES)
                # bytes copied to the very place they had in their own storage (a slice into the same slice of a
                # buffer of the same element size: one expert's block of a MoE weight) are not rearranged
                in_place_copy = (src.element_size() == dst.element_size() and tuple(src.shape) == tuple(dst.shape)
                                 and src.stride() == dst.stride() and src.storage_offset() == dst.storage_offset())
                if ev is not None and ev.unpacks(src, mapping and not in_place_copy, dst):
                    marks.append(MARK_UNPACK)
        elif name in ("clone", "_to_copy", "contiguous"):
            src = args[0]
            if name == "_to_copy" and kwargs.get("dtype") is not None and kwargs["dtype"] != src.dtype \
                    and not (ev is not None and _widens_losslessly(src.dtype, kwargs["dtype"])
                             and ev.lays_out_selector(src)):
                # an index operand widened to int64 (``indices.long()``: false-rejection hunt 29) converts no
                # value of the operator's data; every other conversion is arithmetic outside Triton
                marks.append(MARK_CONVERSION)
            mapping = ev is not None and (not ev.side_ok(src) or kwargs.get("memory_format") not in _PLAIN_FORMATS)
            if mapping and not ev.lays_out_selector(src):
                marks.append(MARK_MAPPING)
            if mapping and splits_elements(src):
                marks.append(MARK_BYTES)
            if ev is not None and ev.unpacks(src, mapping):
                marks.append(MARK_UNPACK)
        elif name in FILL_OPS:
            dst = args[0]
            value = args[1] if name == "fill_" and len(args) > 1 else None
            if isinstance(value, torch.Tensor):
                if value.dtype != dst.dtype:
                    marks.append(MARK_CONVERSION)
                if value.is_neg() != dst.is_neg():
                    marks.append(MARK_NEG)
                if value.is_conj() != dst.is_conj():
                    marks.append(MARK_CONJ)
            elif value is not None and (dst.is_neg() or dst.is_conj()):
                marks.append(MARK_NEG if dst.is_neg() else MARK_CONJ)
            if ev is not None and not ev.side_ok(dst):
                marks.append(MARK_PARTIAL_FILL)
            if ev is not None and isinstance(value, torch.Tensor) and ev.unpacks(value, not ev.side_ok(value), dst):
                marks.append(MARK_UNPACK)
        elif name == "arange" and _arange_computes(args, kwargs):
            marks.append(MARK_VALUES)
    except (AttributeError, IndexError, RuntimeError, TypeError):
        pass
    return marks
