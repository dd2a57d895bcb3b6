"""``gpulens devices [NAME]``: the built-in GPU specs, or one spec's figures with their sources."""

from __future__ import annotations

from typing import Optional

import typer

from gpulens.cli._console import console as make_console
from gpulens.errors import GpulensError


def register(app: typer.Typer) -> None:
    """Add the ``devices`` command to ``app``."""

    @app.command("devices")
    def devices_cmd(name: Optional[str] = typer.Argument(None, help="A GPU (e.g. 'H100 SXM') to show in full.")
                    ) -> None:
        """List the GPUs gpulens knows (peaks used by the roofline), or show one with every figure's source.

        Exit codes: 0 ok, 2 unknown GPU name.
        """
        from gpulens.analyzers import _advice
        from gpulens.devices import SPECS, builtin_spec
        from gpulens.devices.spec import doubt_text, source_legend
        from rich.table import Table  # imported by this command only, not by every command's start


        console = make_console()
        if name is None:
            t = Table(title="Built-in GPU specs: dense peaks, TFLOP/s (analyze --device-spec NAME; others: "
                            "--device-spec FILE)", title_justify="left")
            for c in ("name", "arch", "SMs / CUs", "GB/s", "BF16 TF", "FP32 TF"):
                t.add_column(c, justify="left" if c in ("name", "arch") else "right", no_wrap=True)
            for s in SPECS:
                bf16, fp32 = s.peak_flops("bf16"), s.peak_flops("fp32", matrix=False)
                t.add_row(s.name, s.arch, f"{s.num_sms} {_advice.vendor_word(s.vendor, 'sms')}",
                          f"{s.memory_bandwidth / 1e9:.0f}" if s.memory_bandwidth else "unknown",
                          f"{bf16[0] / 1e12:.1f}" if bf16 and bf16[1].endswith("bf16") else "—",
                          f"{fp32[0] / 1e12:.1f}" if fp32 else "—")
            console.print(t)
            raise typer.Exit(0)
        try:  # the rule of --device-spec NAME and of a spec file's base key
            spec = builtin_spec(name)
        except ValueError as exc:
            raise GpulensError(f"unknown GPU {name!r}: {exc}") from None
        sms = _advice.vendor_word(getattr(spec, "vendor", None), "sms")  # SMs or CUs
        t = Table(title=f"{spec.name} ({spec.arch}, {spec.num_sms} {sms})", title_justify="left")
        for c in ("figure", "value", "source", "uncertain"):
            t.add_column(c)
        for key, f in sorted(spec.figures.items()):
            div, unit = _unit(key)
            t.add_row(key, f"{f.value / div:g} {unit}", f.source, doubt_text(f))  # inferred, or a web copy
        console.print(t)
        legend = source_legend(f.source for _, f in sorted(spec.figures.items()))
        if legend:
            console.print("Sources: " + "; ".join(legend) + ".", soft_wrap=False)
        raise typer.Exit(0)


def _unit(key: str) -> tuple[float, str]:
    """(divisor, unit) to print a spec figure stored in base units: clocks (any ``*clock_mhz``) in MHz, bandwidth
    bytes/s in GB/s, the L2 in bytes as MiB, integer matrix peaks (``*.int8``) in TOP/s, other peaks FLOP/s in
    TFLOP/s (a memory clock had read '2.619e-09 TFLOP/s')."""
    if key.endswith("clock_mhz"):
        return 1, "MHz"
    if key == "memory_bandwidth":
        return 1e9, "GB/s"
    if key == "l2":
        return 2**20, "MiB"
    return 1e12, "TOP/s" if key.rsplit(".", 1)[-1].startswith("int") else "TFLOP/s"
