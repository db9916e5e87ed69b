# AOT ID: ['0_forward']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p


# kernel path: /tmp/torchinductor_root/g7/cg7xkvae7pekwevvaxsjlyop6vz77nguixycawpwxqoi7ftx5p5x.py
# Topologically Sorted Source Nodes: [hidden_states, pow_1, variance, add, rsqrt, hidden_states_1, to_1, mul_1, qq, cos, sin, mul_2, x1, x2, neg, cat, mul_3, q_embed], Original ATen: [aten._to_copy, aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul, aten.transpose, aten.unsqueeze, aten.slice, aten.neg, aten.cat]
# Source node to ATen node mapping:
#   add => add
#   cat => cat
#   cos => unsqueeze
#   hidden_states => convert_element_type
#   hidden_states_1 => mul
#   mul_1 => mul_1
#   mul_2 => mul_2
#   mul_3 => mul_3
#   neg => neg
#   pow_1 => pow_1
#   q_embed => add_1
#   qq => permute
#   rsqrt => rsqrt
#   sin => unsqueeze_1
#   to_1 => convert_element_type_1
#   variance => mean
#   x1 => slice_1
#   x2 => slice_2
# Graph fragment:
#   %primals_1 : Tensor "bf16[4, 2048, 16, 128][4194304, 2048, 128, 1]cuda:0" = PlaceHolder[target=primals_1]
#   %buf0 : Tensor "f32[4, 2048, 16, 1][32768, 16, 1, 131072]cuda:0" = PlaceHolder[target=buf0]
#   %primals_2 : Tensor "bf16[128][1]cuda:0" = PlaceHolder[target=primals_2]
#   %rsqrt : Tensor "f32[4, 2048, 16, 1][32768, 16, 1, 1]cuda:0" = PlaceHolder[target=rsqrt]
#   %primals_3 : Tensor "bf16[4, 2048, 128][262144, 128, 1]cuda:0" = PlaceHolder[target=primals_3]
#   %primals_4 : Tensor "bf16[4, 2048, 128][262144, 128, 1]cuda:0" = PlaceHolder[target=primals_4]
#   %convert_element_type : Tensor "f32[4, 2048, 16, 128][4194304, 2048, 128, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%primals_1, torch.float32), kwargs = {})
#   %pow_1 : Tensor "f32[4, 2048, 16, 128][4194304, 2048, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.pow.Tensor_Scalar](args = (%convert_element_type, 2), kwargs = {})
#   %mean : Tensor "f32[4, 2048, 16, 1][32768, 16, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mean.dim](args = (%pow_1, [-1], True), kwargs = {})
#   %add : Tensor "f32[4, 2048, 16, 1][32768, 16, 1, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mean, 1e-06), kwargs = {})
#   %rsqrt : Tensor "f32[4, 2048, 16, 1][32768, 16, 1, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.rsqrt.default](args = (%add,), kwargs = {})
#   %mul : Tensor "f32[4, 2048, 16, 128][4194304, 2048, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%convert_element_type, %rsqrt), kwargs = {})
#   %convert_element_type_1 : Tensor "bf16[4, 2048, 16, 128][4194304, 2048, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.prims.convert_element_type.default](args = (%mul, torch.bfloat16), kwargs = {})
#   %mul_1 : Tensor "bf16[4, 2048, 16, 128][4194304, 2048, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%primals_2, %convert_element_type_1), kwargs = {})
#   %permute : Tensor "bf16[4, 16, 2048, 128][4194304, 128, 2048, 1]cuda:0"[num_users=3] = call_function[target=torch.ops.aten.permute.default](args = (%mul_1, [0, 2, 1, 3]), kwargs = {})
#   %unsqueeze : Tensor "bf16[4, 1, 2048, 128][262144, 262144, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%primals_3, 1), kwargs = {})
#   %unsqueeze_1 : Tensor "bf16[4, 1, 2048, 128][262144, 262144, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.unsqueeze.default](args = (%primals_4, 1), kwargs = {})
#   %mul_2 : Tensor "bf16[4, 16, 2048, 128][4194304, 128, 2048, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%permute, %unsqueeze), kwargs = {})
#   %slice_1 : Tensor "bf16[4, 16, 2048, 64][4194304, 128, 2048, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%permute, 3, 0, 64), kwargs = {})
#   %slice_2 : Tensor "bf16[4, 16, 2048, 64][4194304, 128, 2048, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.slice.Tensor](args = (%permute, 3, 64, 9223372036854775807), kwargs = {})
#   %neg : Tensor "bf16[4, 16, 2048, 64][2097152, 64, 1024, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.neg.default](args = (%slice_2,), kwargs = {})
#   %cat : Tensor "bf16[4, 16, 2048, 128][4194304, 262144, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.cat.default](args = ([%neg, %slice_1], -1), kwargs = {})
#   %mul_3 : Tensor "bf16[4, 16, 2048, 128][4194304, 262144, 128, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%cat, %unsqueeze_1), kwargs = {})
#   %add_1 : Tensor "bf16[4, 16, 2048, 128][4194304, 128, 2048, 1]cuda:0"[num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mul_2, %mul_3), kwargs = {})
#   return %buf0,%rsqrt,%add_1
triton_per_fused__to_copy_add_cat_mean_mul_neg_pow_rsqrt_slice_transpose_unsqueeze_0 = async_compile.triton('triton_per_fused__to_copy_add_cat_mean_mul_neg_pow_rsqrt_slice_transpose_unsqueeze_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 131072, 'r0_': 128},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*bf16', 'in_ptr1': '*bf16', 'in_ptr2': '*bf16', 'in_ptr3': '*bf16', 'out_ptr0': '*bf16', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__to_copy_add_cat_mean_mul_neg_pow_rsqrt_slice_transpose_unsqueeze_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 8, 'num_store': 2, 'num_reduction': 1, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1048576, 'r0_': 171967232}}
)
@triton.jit
def triton_per_fused__to_copy_add_cat_mean_mul_neg_pow_rsqrt_slice_transpose_unsqueeze_0(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 131072
    r0_numel = 128
    R0_BLOCK: tl.constexpr = 128
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    x3 = xindex // 16
    tmp0 = tl.load(in_ptr0 + (r0_1 + 128*x0), None).to(tl.float32)
    tmp11 = tl.load(in_ptr1 + (r0_1), None, eviction_policy='evict_last').to(tl.float32)
    tmp15 = tl.load(in_ptr2 + (r0_1 + 128*x3), None, eviction_policy='evict_last').to(tl.float32)
    tmp43 = tl.load(in_ptr3 + (r0_1 + 128*x3), None, eviction_policy='evict_last').to(tl.float32)
    tmp1 = tmp0.to(tl.float32)
    tmp2 = tmp1 * tmp1
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK, R0_BLOCK])
    tmp5 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tmp6 = tl.full([1, 1], 128.0, tl.float32)
    tmp7 = (tmp5 / tmp6)
    tmp8 = tl.full([1, 1], 1e-06, tl.float32)
    tmp9 = tmp7 + tmp8
    tmp10 = libdevice.rsqrt(tmp9)
    tmp12 = tmp1 * tmp10
    tmp13 = tmp12.to(tl.float32)
    tmp14 = tmp11 * tmp13
    tmp16 = tmp14 * tmp15
    tmp17 = r0_1
    tmp18 = tl.full([1, 1], 0, tl.int64)
    tmp19 = tmp17 >= tmp18
    tmp20 = tl.full([1, 1], 64, tl.int64)
    tmp21 = tmp17 < tmp20
    tmp22 = tl.load(in_ptr1 + (tl.broadcast_to(64 + (r0_1), [XBLOCK, R0_BLOCK])), tmp21, eviction_policy='evict_last', other=0.0).to(tl.float32)
    tmp23 = tl.load(in_ptr0 + (64 + 128*x0 + (r0_1)), tmp21, eviction_policy='evict_last', other=0.0).to(tl.float32)
    tmp24 = tmp23.to(tl.float32)
    tmp25 = tmp24 * tmp10
    tmp26 = tmp25.to(tl.float32)
    tmp27 = tmp22 * tmp26
    tmp28 = -tmp27
    tmp29 = tl.full(tmp28.shape, 0.0, tmp28.dtype)
    tmp30 = tl.where(tmp21, tmp28, tmp29)
    tmp31 = tmp17 >= tmp20
    tmp32 = tl.full([1, 1], 128, tl.int64)
    tmp33 = tmp17 < tmp32
    tmp34 = tl.load(in_ptr1 + (tl.broadcast_to((-64) + r0_1, [XBLOCK, R0_BLOCK])), tmp31, eviction_policy='evict_last', other=0.0).to(tl.float32)
    tmp35 = tl.load(in_ptr0 + (128*x0 + ((-64) + r0_1)), tmp31, eviction_policy='evict_last', other=0.0).to(tl.float32)
    tmp36 = tmp35.to(tl.float32)
    tmp37 = tmp36 * tmp10
    tmp38 = tmp37.to(tl.float32)
    tmp39 = tmp34 * tmp38
    tmp40 = tl.full(tmp39.shape, 0.0, tmp39.dtype)
    tmp41 = tl.where(tmp31, tmp39, tmp40)
    tmp42 = tl.where(tmp21, tmp30, tmp41)
    tmp44 = tmp42 * tmp43
    tmp45 = tmp16 + tmp44
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x0), tmp10, None)
    tl.store(out_ptr0 + (r0_1 + 128*x0), tmp45, None)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        primals_1, primals_2, primals_3, primals_4 = args
        args.clear()
        assert_size_stride(primals_1, (4, 2048, 16, 128), (4194304, 2048, 128, 1))
        assert_size_stride(primals_2, (128, ), (1, ))
        assert_size_stride(primals_3, (4, 2048, 128), (262144, 128, 1))
        assert_size_stride(primals_4, (4, 2048, 128), (262144, 128, 1))
        with torch.cuda._DeviceGuard(0):
            torch.cuda.set_device(0)
            buf0 = empty_strided_cuda((4, 2048, 16, 1), (32768, 16, 1, 131072), torch.float32)
            buf1 = reinterpret_tensor(buf0, (4, 2048, 16, 1), (32768, 16, 1, 1), 0); del buf0  # reuse
            buf2 = empty_strided_cuda((4, 16, 2048, 128), (4194304, 128, 2048, 1), torch.bfloat16)
            # Topologically Sorted Source Nodes: [hidden_states, pow_1, variance, add, rsqrt, hidden_states_1, to_1, mul_1, qq, cos, sin, mul_2, x1, x2, neg, cat, mul_3, q_embed], Original ATen: [aten._to_copy, aten.pow, aten.mean, aten.add, aten.rsqrt, aten.mul, aten.transpose, aten.unsqueeze, aten.slice, aten.neg, aten.cat]
            stream0 = get_raw_stream(0)
            triton_per_fused__to_copy_add_cat_mean_mul_neg_pow_rsqrt_slice_transpose_unsqueeze_0.run(buf1, primals_1, primals_2, primals_3, primals_4, buf2, 131072, 128, stream=stream0)
        return (buf2, primals_1, primals_2, primals_3, primals_4, buf1, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    primals_1 = rand_strided((4, 2048, 16, 128), (4194304, 2048, 128, 1), device='cuda:0', dtype=torch.bfloat16)
    primals_2 = rand_strided((128, ), (1, ), device='cuda:0', dtype=torch.bfloat16)
    primals_3 = rand_strided((4, 2048, 128), (262144, 128, 1), device='cuda:0', dtype=torch.bfloat16)
    primals_4 = rand_strided((4, 2048, 128), (262144, 128, 1), device='cuda:0', dtype=torch.bfloat16)
    return [primals_1, primals_2, primals_3, primals_4]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat)


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
