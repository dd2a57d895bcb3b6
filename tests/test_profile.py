"""gpulens.profile() and `gpulens profile` on CPU: a tiny model trained for a few steps, checked against what the code
ran (op calls per step, step numbers, FLOPs by the matmul formula 2·M·N·K). Needs torch (skips without it)."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import gpulens  # noqa: E402
from gpulens.cli import main  # noqa: E402

SCRIPT = Path(__file__).parent / "data" / "profile" / "train_script.py"
B, D_IN, D_HID, D_OUT = 8, 16, 32, 4
# torch's FLOP formula for aten::addmm is 2·M·N·K (the bias add is not counted): one step runs two Linear layers.
ADDMM_FLOPS_PER_STEP = 2 * B * D_IN * D_HID + 2 * B * D_HID * D_OUT  # 8192 + 2048


def _train(prof, n_steps):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(D_IN, D_HID), torch.nn.ReLU(), torch.nn.Linear(D_HID, D_OUT))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(B, D_IN), torch.randn(B, D_OUT)
    for _ in range(n_steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        prof.step()


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("prof")
    with gpulens.profile(out=out, steps=3, warmup=1, wait=1, telemetry="auto") as prof:
        _train(prof, 7)
    return prof


def test_outputs_written(profiled):
    assert profiled.error is None
    assert profiled.trace_path.name == "profile.pt.trace.json.gz" and profiled.trace_path.is_file()
    doc = json.loads(profiled.json_path.read_text())
    assert doc["schema_version"] == 2 and doc["sources"][0]["label"] == "profile"
    page = profiled.html_path.read_text()
    assert profiled.html_path.name == "profile.report.html" and page.lstrip().lower().startswith("<!doctype html")
    assert "aten::addmm" in page  # the host-operator table
    if not torch.cuda.is_available():
        assert "telemetry unavailable: nvml: " in page  # the reason is shown, not only stored


def test_steps_match_the_schedule(profiled):
    # torch numbers steps from 0: step 0 is `wait`, step 1 `warmup`, steps 2, 3, 4 are recorded (active=3)
    doc = json.loads(profiled.json_path.read_text())
    st = doc["sources"][0]["analyses"]["steps"]
    assert st["summary"]["step_count"] == 3
    assert st["summary"]["steps"] == [2, 3, 4]
    assert profiled.steps_done == 7
    assert doc["sources"][0]["inputs"][0]["profile"]["steps_done"] == 7


def test_cpu_op_names_and_calls_match_the_code(profiled):
    table = {r["name"]: r for r in json.loads(profiled.json_path.read_text())["sources"][0]["analyses"]
             ["cpu_ops"]["table"]}
    # per step: 2 Linear layers (aten::linear → aten::addmm), one ReLU, one MSE loss and its backward
    assert table["aten::linear"]["calls"] == 2 * 3
    assert table["aten::addmm"]["calls"] == 2 * 3
    assert table["aten::relu"]["calls"] == 3
    assert table["aten::mse_loss"]["calls"] == 3
    assert table["MseLossBackward0"]["calls"] == 3  # the autograd node; aten::mse_loss_backward nests in itself
    assert "aten::conv2d" not in table


def test_flops_kept_although_the_trace_lacks_them(profiled):
    with gzip.open(profiled.trace_path, "rt") as fh:
        events = json.load(fh)["traceEvents"]
    addmm = [e for e in events if e.get("name") == "aten::addmm"]
    assert len(addmm) == 6 and not any("flops" in e.get("args", {}) for e in addmm)
    rep = profiled.report.sources[0].results["cpu_ops"].table.set_index("name")
    assert rep.loc["aten::addmm", "flops"] == 3 * ADDMM_FLOPS_PER_STEP
    tl = profiled.timeline
    per_op = sorted(tl.events.loc[tl.events["name"] == "aten::addmm", "flops"].tolist())
    assert per_op == [2 * B * D_HID * D_OUT] * 3 + [2 * B * D_IN * D_HID] * 3


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present: telemetry may be available")
def test_telemetry_unavailable_is_reported_with_the_reason(profiled):
    src = json.loads(profiled.json_path.read_text())["sources"][0]
    tel = src["analyses"]["telemetry"]
    assert tel["skipped_reason"].startswith("telemetry unavailable: nvml: ")
    assert "rocm: " in tel["skipped_reason"]
    # a fact of the machine, listed apart from the input warnings (never counted as one)
    assert any(w.startswith("telemetry unavailable") for w in src["environment_notes"])
    assert not any(w.startswith("telemetry unavailable") for w in src["warnings"]) and "telemetry" not in (src["input_note"] or "")
    assert profiled.telemetry_status["available"] is False


def test_block_ending_before_the_recorded_steps_records_nothing_and_says_so(tmp_path):
    with gpulens.profile(out=tmp_path, steps=3, warmup=2, telemetry=False) as prof:
        _train(prof, 1)  # steps 0 and 1 are warm-up: the block ends inside step 1
    assert prof.report is None and prof.trace_path is None and list(tmp_path.iterdir()) == []
    assert prof.error == "no trace recorded: the block ended after 1 step, before the first recorded step " \
                         "(wait=0 + warmup=2)"


def test_user_exception_propagates_and_outputs_are_still_written(tmp_path):
    with pytest.raises(RuntimeError, match="boom"):
        with gpulens.profile(out=tmp_path, telemetry=False, html=False) as prof:
            torch.mm(torch.ones(4, 5), torch.ones(5, 6))
            raise RuntimeError("boom")
    names = set(prof.timeline.events["name"].astype(str))
    assert "aten::mm" in names and prof.json_path.is_file()


def test_never_overwrites_an_earlier_run(tmp_path):
    for _ in range(2):
        with gpulens.profile(out=tmp_path, telemetry=False, html=False):
            torch.ones(3).sum()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "profile-2.pt.trace.json.gz", "profile-2.report.json", "profile.pt.trace.json.gz", "profile.report.json"]


def test_decorator(tmp_path):
    @gpulens.profile(out=tmp_path, telemetry=False, html=False, label="fn")
    def work(n):
        return torch.ones(n, n).matmul(torch.ones(n, n)).sum().item()

    assert work(3) == 27.0
    calls = work.profile.report.sources[0].results["cpu_ops"].table.set_index("name")["calls"]
    assert calls["aten::matmul"] == 1


# -- the command --------------------------------------------------------------------------------------------------

def _report(out: Path, stem: str = "train_script") -> dict:
    return json.loads((out / f"{stem}.report.json").read_text())["sources"][0]


def test_cli_runs_the_script_as_main_and_writes_outputs(tmp_path):
    r = subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", "profile", "-q",
                        "-o", str(tmp_path), str(SCRIPT), "--", "--epochs", "1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "train_script done: epochs=1 argv=['--epochs', '1']" in r.stdout  # ran as __main__ with its own argv
    assert (tmp_path / "train_script.pt.trace.json.gz").is_file()
    assert "aten::mse_loss" in (tmp_path / "train_script.report.html").read_text()
    calls = {x["name"]: x["calls"] for x in _report(tmp_path)["analyses"]["cpu_ops"]["table"]}
    assert calls["aten::addmm"] == 2 * 4 and calls["aten::mse_loss"] == 4  # 1 epoch × 4 batches, 2 layers


def test_cli_steps_follow_optimizer_steps(tmp_path, capsys):
    code = main(["profile", "-o", str(tmp_path), "--steps", "2", "--warmup", "1", str(SCRIPT), "--epochs", "2"])
    assert code == 0
    st = _report(tmp_path)["analyses"]["steps"]["summary"]
    assert st["step_count"] == 2 and st["steps"] == [1, 2]  # step 0 warm-up, then 2 recorded of 8 optimizer steps
    out, err = capsys.readouterr()
    assert "train_script done" in out and "steps     2 recorded [1, 2], median" in err  # summary on stderr


def test_cli_preserves_the_scripts_exit_code(tmp_path):
    assert main(["profile", "-q", "-o", str(tmp_path), str(SCRIPT), "--", "--exit-code", "3"]) == 3
    assert (tmp_path / "train_script.report.json").is_file()


def test_cli_failing_script_exits_4_with_its_traceback(tmp_path, capfd):
    assert main(["profile", "-q", "-o", str(tmp_path), str(SCRIPT), "--", "--fail"]) == 4
    err = capfd.readouterr().err
    assert "ValueError: deliberate failure after training" in err
    assert _report(tmp_path)["summary"]["cpu_op_count"] > 0  # the run up to the failure is analysed


def test_cli_missing_script_is_a_usage_error(tmp_path, capsys):
    assert main(["profile", "-o", str(tmp_path), str(tmp_path / "nope.py")]) == 2
    assert capsys.readouterr().err.strip() == f"gpulens: error: {tmp_path / 'nope.py'}: no such script"


def test_telemetry_samples_land_inside_the_recorded_window(tmp_path):
    class Scripted:
        name = "scripted"

        def devices(self):
            return [0]

        def readers(self, device):
            return {"power": lambda: 300.0}

        def close(self):
            pass

    import time

    with gpulens.profile(out=tmp_path, steps=3, warmup=1, telemetry=Scripted(), telemetry_interval_s=0.01,
                         html=False) as prof:
        for _ in range(5):
            time.sleep(0.05)
            prof.step()
    tl = prof.timeline
    co = tl.counters[tl.counters["metric"] == "telemetry.power.gpu0"]
    steps = prof.report.sources[0].results["steps"].table
    span_ns = int(steps["start_ns"].iloc[-1] + steps["dur_ns"].iloc[-1] - steps["start_ns"].iloc[0])
    # three 50 ms steps sampled every 10 ms: if the sampler's clock did not match the trace's, none would be kept
    assert span_ns >= 150_000_000 and len(co) >= 0.5 * span_ns / 10_000_000
    assert prof.report.sources[0].results["telemetry"].summary["samples"] == len(co)


# -- vendor backends ----------------------------------------------------------------------------------------------

def test_vendor_commands(tmp_path):
    from gpulens.profiler.runner import vendor_plan

    cmd = ["python", "train.py", "--epochs", "1"]
    p = vendor_plan("nsys", cmd, tmp_path, "run")
    assert p.record.argv == ["nsys", "profile", "--trace=cuda,nvtx,osrt", "-o", str(tmp_path / "run"), *cmd]
    assert p.convert[0].argv == ["nsys", "export", "--type", "sqlite", "-o", str(tmp_path / "run.sqlite"),
                                 str(tmp_path / "run.nsys-rep")]
    assert p.analyze == tmp_path / "run.sqlite"
    p = vendor_plan("ncu", cmd, tmp_path, "run", binary="/opt/ncu")
    assert p.record.argv == ["/opt/ncu", "--target-processes", "all", "-o", str(tmp_path / "run"), *cmd]
    assert p.convert[0].argv == ["/opt/ncu", "--import", str(tmp_path / "run.ncu-rep"), "--csv", "--page", "details"]
    assert p.convert[0].stdout == tmp_path / "run.ncu.csv" == p.analyze
    p = vendor_plan("rocprofv3", cmd, tmp_path, "run")
    assert p.record.argv == ["rocprofv3", "--kernel-trace", "--memory-copy-trace", "--output-format", "csv",
                             "-d", str(tmp_path / "run.rocprofv3"), "-o", "run", "--", *cmd]
    assert p.convert == []


@pytest.mark.parametrize("backend,hint", [("nsys", "Nsight Systems"), ("ncu", "Nsight Compute"),
                                          ("rocprofv3", "rocprofiler-sdk")])
def test_missing_vendor_binary_is_one_line_exit_2(tmp_path, monkeypatch, capsys, backend, hint):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no profiler binary anywhere
    assert main(["profile", "--backend", backend, "-o", str(tmp_path / "o"), "--", "python", "x.py"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gpulens: error: {backend} not found on PATH: install ")
    assert hint in err and not (tmp_path / "o").exists()


def test_unknown_backend_is_a_usage_error(capsys):
    assert main(["profile", "--backend", "vtune", "--", "python", "x.py"]) == 2
    assert "unknown backend 'vtune'" in capsys.readouterr().err


def test_vendor_run_keeps_the_workloads_exit_code_and_analyzes_the_export(tmp_path, monkeypatch, capsys):
    # A stand-in `nsys` on PATH: `profile ... -o BASE CMD` runs CMD and writes BASE.nsys-rep; `export ... -o DB REP`
    # writes DB as a copy of a real nsys 2024.6 SQLite export (tests/data/nvidia). This checks the orchestration —
    # the workload ran, its exit code is kept, the export is analyzed — not nsys itself.
    from tests.conftest import DATA

    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "nsys"
    fake.write_text(f"""#!/bin/sh
if [ "$1" = profile ]; then base=$4; shift 4; "$@"; rc=$?; echo rep > "$base.nsys-rep"; exit $rc; fi
if [ "$1" = export ]; then cp {DATA / 'nvidia' / 'fuser_h200_nsys2024.6_report1.sqlite'} "$5"; exit 0; fi
exit 9
""")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    out = tmp_path / "o"
    code = main(["profile", "-q", "--backend", "nsys", "-o", str(out), "--label", "run", "--",
                 sys.executable, "-c", "import sys; print('workload ran'); sys.exit(3)"])
    assert code == 3
    assert (out / "run.nsys-rep").is_file() and (out / "run.sqlite").is_file()
    doc = json.loads((out / "run.report.json").read_text())["sources"][0]
    assert doc["summary"]["kernel_count"] == 19  # the export's kernels (SOURCES.md facts, see test_nsys)
    assert doc["collectors"] == ["nsys_sqlite"]


def test_rocprofv3_run_finds_its_nested_kernel_trace(tmp_path, monkeypatch):
    # A stand-in `rocprofv3` that, like the real one, writes <-d DIR>/<host>/<pid>/<-o NAME>_kernel_trace.csv (here
    # a copy of rocprofiler-sdk's documented sample) after running the command after `--`.
    import csv

    from tests.conftest import DATA

    sample = DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "rocprofv3"
    fake.write_text(f"""#!/bin/sh
while [ "$1" != "--" ]; do case "$1" in -d) dir=$2; shift;; -o) name=$2; shift;; esac; shift; done
shift; "$@"; rc=$?
mkdir -p "$dir/host/4242" && cp {sample} "$dir/host/4242/${{name}}_kernel_trace.csv"; exit $rc
""")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    out = tmp_path / "o"
    assert main(["profile", "-q", "--backend", "rocprofv3", "-o", str(out), "--label", "r", "--",
                 sys.executable, "-c", "pass"]) == 0
    with sample.open() as fh:
        dispatches = sum(1 for row in csv.DictReader(fh) if row["Kind"] == "KERNEL_DISPATCH")
    doc = json.loads((out / "r.report.json").read_text())["sources"][0]
    assert dispatches > 0 and doc["summary"]["kernel_count"] == dispatches


def test_ncu_run_reads_the_report_itself_when_ncu_report_is_installed(tmp_path, monkeypatch):
    # A stand-in `ncu` that writes a real H200 .ncu-rep (tests/data/nvidia/h200) and, on --import, its details CSV
    # (which names no GPU). With ncu_report importable the report itself is analysed: the device is the H200 the
    # report names, not an H100 assumed from compute capability 9.0.
    pytest.importorskip("ncu_report")
    from tests.conftest import DATA

    h200 = DATA / "nvidia" / "h200"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "ncu"
    fake.write_text(f"""#!/bin/sh
if [ "$1" = --import ]; then cat {h200 / 'h200_kernels_details.csv'}; exit 0; fi
base=$4; shift 4; "$@"; rc=$?; cp {h200 / 'h200_kernels.ncu-rep'} "$base.ncu-rep"; exit $rc
""")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    out = tmp_path / "o"
    assert main(["profile", "-q", "--backend", "ncu", "-o", str(out), "--label", "k", "--",
                 sys.executable, "-c", "pass"]) == 0
    assert (out / "k.ncu.csv").is_file()  # the CSV export is still written for the user
    doc = json.loads((out / "k.report.json").read_text())["sources"][0]
    assert doc["collectors"] == ["ncu_rep"]
    assert doc["summary"]["kernel_count"] == 4  # kernels.cu launches four kernels
    assert doc["devices"][0]["name"] == "NVIDIA H200"
    assert doc["device_spec"] == "NVIDIA H200 SXM" and doc["device_spec_assumed"] is False
