"""A tiny training script for the `gpulens profile` tests: an MLP (16 → 32 → 4) trained with SGD on fixed data.

Per epoch: BATCHES steps, each one forward (2 × aten::addmm, aten::relu, aten::mse_loss), backward and
optimizer.step(). Options: --epochs N, --fail (raise after training), --exit-code N (sys.exit(N) after training).
"""

import argparse
import sys

import torch

BATCHES = 4


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--fail", action="store_true")
    ap.add_argument("--exit-code", type=int, default=None)
    a = ap.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(8, 16), torch.randn(8, 4)
    for _ in range(a.epochs):
        for _ in range(BATCHES):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    print(f"train_script done: epochs={a.epochs} argv={sys.argv[1:]}")
    if a.fail:
        raise ValueError("deliberate failure after training")
    if a.exit_code is not None:
        sys.exit(a.exit_code)


if __name__ == "__main__":
    main()
