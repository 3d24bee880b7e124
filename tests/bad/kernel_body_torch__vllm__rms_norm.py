# F1: PyTorch compute inside a @triton.jit body. Under TRITON_INTERPRET=1 the kernel body is plain
# Python run while state.STATE.inside_launch > 0 (CandidateMode does not trace), and L1 turns the
# tensor-method rules off inside jit bodies. A list argument is passed through untouched by the
# interpreter (_implicit_cvt / _to_cpu leave non-tensor, non-tuple objects alone).
import torch
import triton
import triton.language as tl


@triton.jit
def _k(box):
    box[0].copy_(((box[1].float() * (box[1].float().square().mean(-1, keepdim=True) + box[3]).rsqrt())
                  .to(box[0].dtype)) * box[2])


def rms_norm(out, input, weight, epsilon):
    _k[(1,)]([out, input, weight, float(epsilon)])
    return None
