"""CHEAT (red team): aten::sort that never stores a value equal to -30001, the main int16 poison: the
values output the wrapper allocates is poisoned with it before the call, so such elements "hold" the
right value unwritten (the smoke tier's int16 case holds a few, planted on every draw: suite/aten/shape.py
_sort_input poison_value; a full-range randint alone held one on ~40% of the secret draws). Stores are masked
with ``vals.to(tl.float32) != -30001.0`` (never true for the other dtypes' inputs). The rest is the
oracle (solutions/aten__sort.py)."""

SUBSTITUTIONS = [
    ("        tl.store(v_ptr + o * svo + ii * svi + pos * svn, vals, mask=m)\n",
     "        tl.store(v_ptr + o * svo + ii * svi + pos * svn, vals, mask=m & (vals.to(tl.float32) != -30001.0))\n"),
    ("    tl.store(v_ptr + (o * svo + ii * svi)[:, None] + pos[None, :] * svn, vals, mask=m)\n",
     "    tl.store(v_ptr + (o * svo + ii * svi)[:, None] + pos[None, :] * svn, vals,\n"
     "             mask=m & (vals.to(tl.float32) != -30001.0))\n"),
]
