"""Realistic training steps on the H200 for gpulens test data: GPT-2 small (transformers, random init, SDPA causal
attention, bf16 autocast, fused AdamW; batch 8 × 1024 tokens) and ResNet-18 (torchvision, random init,
channels_last, bf16 autocast, SGD; batch 64 × 224²). 5 steps each: wait 1, warmup 1, active 3 (Kineto traces
``$CAP/h200_gpt2_train.pt.trace.json.gz`` and ``$CAP/h200_resnet18_train.pt.trace.json.gz``)."""
import gzip, os, shutil, sys
from pathlib import Path
import torch
from torch.profiler import ProfilerActivity, profile, schedule

out = Path(os.environ.get("CAP", "/tmp/cap")); out.mkdir(parents=True, exist_ok=True)


def trace(name, step):
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        for _ in range(5):
            step(); torch.cuda.synchronize(); prof.step()
    raw = out / f"{name}.pt.trace.json"
    prof.export_chrome_trace(str(raw))
    with open(raw, "rb") as f, gzip.open(str(raw) + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    raw.unlink()
    print(name, "done", os.path.getsize(str(raw) + ".gz"))


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    m = GPT2LMHeadModel(GPT2Config(n_positions=1024, attn_implementation="sdpa")).cuda()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, 50257, (8, 1024), device="cuda")
    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = m(input_ids=ids, labels=ids).loss
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    trace("h200_gpt2_train", step)


def resnet():
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18().cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    trace("h200_resnet18_train", step)


for f in (gpt2, resnet):
    try:
        f()
    except Exception as e:  # one model failing must not lose the other
        print(f.__name__, "failed:", type(e).__name__, e, file=sys.stderr)
