"""A small GPU training script for `gpulens profile` on a real device: a 3-layer MLP (1024 → 4096 → 4096 → 1024,
bf16 autocast) trained with AdamW for 12 steps on fixed data (batch 2048), plus one host→device batch copy per step."""
import os
import torch

B, H, N = (int(os.environ.get(k, v)) for k, v in (("GT_BATCH", "2048"), ("GT_HIDDEN", "4096"), ("GT_STEPS", "12")))

dev = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, H), torch.nn.GELU(), torch.nn.Linear(H, H),
                            torch.nn.GELU(), torch.nn.Linear(H, 1024)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
xs = torch.randn(B, 1024)
ys = torch.randn(B, 1024, device=dev)
for _ in range(N):
    x = xs.to(dev, non_blocking=True)
    with torch.autocast(dev, dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(model(x).float(), ys)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
print("gpu_train done", float(loss.detach()))
