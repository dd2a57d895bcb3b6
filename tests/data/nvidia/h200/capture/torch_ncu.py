"""PyTorch kernels for ncu inside one NVTX range "gpulens_ncu" (ncu --nvtx --nvtx-include gpulens_ncu/):
bf16 GEMM 4096³ (2·4096³ = 137.4 GFLOP), fp32 y = 2·x + y over 2²⁴ (mul: 64 MiB in, 64 MiB out; add: 128 MiB in,
64 MiB out), softmax over 8192×1024 fp32 (32 MiB in, 32 MiB out)."""
import torch

n = 4096
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
x = torch.randn(1 << 24, device="cuda")
y = torch.randn_like(x)
h = torch.randn(8192, 1024, device="cuda")
for _ in range(2):  # warm-up: cuBLAS heuristics, lazy module loading
    c = a @ b
    z = 2.0 * x + y
    s = torch.softmax(h, dim=-1)
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("gpulens_ncu")
c = a @ b
z = 2.0 * x + y
s = torch.softmax(h, dim=-1)
torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("torch_ncu done", float(c.float().sum()), float(z.sum()), float(s.sum()))
