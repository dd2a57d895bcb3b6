"""Fixed costs of ``gpulens analyze`` (issue 16, session 50): what a command imports and does besides the analysis.

- Sniffing a folder imports only the collectors that read a folder as one input
  (:data:`gpulens.collectors.base.FOLDER_COLLECTOR_MODULES`), not all of them: the list must name every such
  collector's module (else a folder it claims would be read file by file), and a folder is given to the same
  collector as when every collector module is imported and each offered the folder in sniffing order.
- A folder of Kineto rank files read in this process imports neither the other collectors nor the process pool.
- The console command collects the youngest GC generation less often once its heavy imports are in; a library
  caller's garbage-collector settings are left as they were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
FOLDERS = sorted(p for p in DATA.rglob("*") if p.is_dir() and "__pycache__" not in p.parts)


def _fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter (this worktree's sources first) and return the JSON it prints last."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                         cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_folder_collector_modules_name_every_folder_collector():
    from gpulens.collectors import registry
    from gpulens.collectors.base import FOLDER_COLLECTOR_MODULES

    folder = {cls.__module__.rsplit(".", 1)[-1] for cls in registry().values() if cls.accepts_dirs}
    assert folder, "no collector reads a folder: the check below would pass for nothing"
    assert set(FOLDER_COLLECTOR_MODULES) == folder


def test_folder_sniffed_as_with_every_collector_offered_in_order():
    """Oracle: the sniffing rule written out here — every registered collector that accepts a folder, lowest
    ``priority`` then ``name`` first, the first whose ``sniff(folder, b"")`` says yes — with all collector modules
    imported; the fresh process imports only the folder collectors' modules."""
    from gpulens.collectors import registry

    classes = sorted((c for c in registry().values() if c.accepts_dirs), key=lambda c: (c.priority, c.name))
    want = {}
    for d in FOLDERS:
        want[str(d)] = next((cls.name for cls in classes if cls().sniff(d, b"")), None)
    assert any(v is not None for v in want.values()) and any(v is None for v in want.values())
    got = _fresh(
        "import json, sys\n"
        "from gpulens.collectors import sniff\n"
        f"paths = {json.dumps([str(d) for d in FOLDERS])}\n"
        "names = {p: (lambda c: c.name if c is not None else None)(sniff(p)) for p in paths}\n"
        "print(json.dumps({'names': names}))\n")
    assert got["names"] == want


def test_kineto_rank_folder_loads_without_other_collectors_or_pool():
    folder = DATA / "kineto" / "multirank"
    from gpulens.collectors import collect

    tl = collect(folder)
    kernels = tl.events[tl.events["kind"] == "kernel"]
    want = {"rows": len(tl.events), "kernels": len(kernels), "kernel_ns": int(kernels["dur_ns"].sum()),
            "ranks": sorted(int(r) for r in tl.events["rank"].unique())}
    assert want["kernels"] > 0 and len(want["ranks"]) == 2  # two rank files: rank-0 and rank-1
    got = _fresh(
        "import json, sys\n"
        "from gpulens.collectors import collect\n"
        f"tl = collect({str(folder)!r})\n"
        "k = tl.events[tl.events['kind'] == 'kernel']\n"
        "mods = [m for m in sys.modules if m.startswith('gpulens.collectors.') and not m.rsplit('.', 1)[1].startswith('_')]\n"
        "print(json.dumps({'rows': len(tl.events), 'kernels': len(k), 'kernel_ns': int(k['dur_ns'].sum()),\n"
        "                  'ranks': sorted(int(r) for r in tl.events['rank'].unique()), 'mods': sorted(mods),\n"
        "                  'pool': 'concurrent.futures.process' in sys.modules}))\n")
    mods = got.pop("mods")
    pool = got.pop("pool")
    assert got == want
    assert not pool
    for fmt in ("nsys_sqlite", "ncu_csv", "rocpd", "nvprof_sqlite", "rocprofv3_json"):
        assert f"gpulens.collectors.{fmt}" not in mods


def test_console_command_collects_young_objects_less_often_library_untouched(tmp_path):
    import gc

    from gpulens.cli import GC_YOUNG_THRESHOLD, main

    before = gc.get_threshold()
    out = tmp_path / "r.json"
    assert main(["analyze", str(DATA / "kineto" / "hta_a100_simple_add_two_streams.json.gz"), "-q", "--no-cache",
                 "--json", str(out)]) == 0
    assert gc.get_threshold() == before  # an in-process caller keeps its own settings
    assert GC_YOUNG_THRESHOLD > 700  # above Python's default, else the setting saves nothing
    seen = tmp_path / "threshold.json"
    code = (
        "import atexit, gc, json, sys\n"
        f"atexit.register(lambda: open({str(seen)!r}, 'w').write(json.dumps(gc.get_threshold())))\n"
        f"sys.argv = ['gpulens', 'analyze', {str(DATA / 'kineto' / 'hta_a100_simple_add_two_streams.json.gz')!r},\n"
        f"            '-q', '--no-cache', '--json', {str(tmp_path / 'r2.json')!r}]\n"
        "from gpulens.cli import main\n"
        "main()\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(seen.read_text())
    assert got[0] == GC_YOUNG_THRESHOLD and got[1:] == list(before[1:])
    # the two runs wrote the same report (the GC setting changes no figure)
    a, b = json.loads(out.read_text()), json.loads((tmp_path / "r2.json").read_text())
    assert len(a["sources"]) == 1 and a["sources"][0]["summary"]
    assert a["sources"] == b["sources"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
