"""torch.compile'd transformer block (LayerNorm → SDPA attention → LayerNorm → GELU MLP), bf16, batch 8 × 1024
tokens × 1024 hidden, 16 heads, trained with AdamW; 6 steps: wait 1, warmup 2, active 3 profiled (Kineto trace
``$CAP/h200_compiled.pt.trace.json.gz``): Triton kernels (triton_*), Torch-Compiled Region / CompiledFunction ranges,
cuBLAS GEMMs, flash attention."""
import gzip, os, shutil
from pathlib import Path
import torch
from torch.profiler import ProfilerActivity, profile, schedule

class Block(torch.nn.Module):
    def __init__(self, d=1024, h=16):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc1, self.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)
    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))

out = Path(os.environ.get("CAP", "/tmp/cap")); out.mkdir(parents=True, exist_ok=True)
torch.manual_seed(0)
m = Block().cuda()
opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
cm = torch.compile(m)
x = torch.randn(8, 1024, 1024, device="cuda")
def step():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = cm(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
for _ in range(2):
    step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
             schedule=schedule(wait=1, warmup=2, active=3)) as prof:
    for _ in range(6):
        step(); torch.cuda.synchronize(); prof.step()
raw = out / "h200_compiled.pt.trace.json"
prof.export_chrome_trace(str(raw))
with open(raw, "rb") as f, gzip.open(str(raw) + ".gz", "wb", compresslevel=9) as g:
    shutil.copyfileobj(f, g)
raw.unlink()
print("compiled done")
