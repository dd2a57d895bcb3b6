"""No secrets, ever (issue 17, class 9): nothing shipped holds a credential, and no report copies one from a trace.
"""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.timeline.secrets import CREDENTIAL, scrub

ROOT = Path(__file__).resolve().parents[1]
# Fake credentials assembled at run time so that this file itself holds no credential-shaped text.
FAKE_HF = "hf_" + "Zq3" * 12
FAKE_GH = "ghp_" + "x7Y" * 12
FAKE_AWS = "AKIA" + "ABCD2345EFGH6789"
ENV_VALUE = "visible-env-value-" + "q9"  # an ordinary environment value: must not be copied either
# A secret-looking key with a quoted non-placeholder value (JSON / TOML / INI shapes).
SECRET_PAIR = re.compile(rb'["\']?([A-Za-z0-9_.-]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY)[A-Za-z0-9_.-]*)'
                         rb'["\']?\s*[:=]\s*"([^"]{8,})"', re.IGNORECASE)
PLACEHOLDERS = (b"<redacted>", b"***", b"xxx", b"${", b"{{", b"<your")


def _shipped_files() -> list[Path]:
    out = []
    for top in (ROOT / "src", ROOT / "tests"):
        out += [p for p in top.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                and not p.name.endswith(".pyc")]
    return out


def _content(p: Path) -> bytes:
    blob = p.read_bytes()
    if blob[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(blob)
        except (OSError, EOFError):  # deliberately truncated/corrupt test inputs: scan what decompresses
            import zlib

            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(blob)
    return blob


def test_no_credential_in_any_bundled_or_test_file():
    # The BERT-small traces once carried metadata.system.env.HF_TOKEN (issue 17, class 9): every file of the
    # package and of the tests, gzip members decompressed, must hold no token of a known issuer's format and no
    # secret-looking key with a real-looking value.
    files = _shipped_files()
    assert len(files) > 50 and any(p.name.endswith(".gz") for p in files)
    found = []
    for p in files:
        data = _content(p)
        text = data.decode("utf-8", errors="replace")
        found += [f"{p.relative_to(ROOT)}: {m[:12]}…" for m in CREDENTIAL.findall(text)]
        for m in SECRET_PAIR.finditer(data):
            if not any(ph in m.group(2) for ph in PLACEHOLDERS):
                found.append(f"{p.relative_to(ROOT)}: {m.group(1).decode(errors='replace')}=…")
    assert found == []


def test_scan_detects_the_patterns_it_guards_against():
    # The scan above must be able to fail: each fake credential is found, in plain text and after gzip.
    for tok in (FAKE_HF, FAKE_GH, FAKE_AWS):
        assert CREDENTIAL.findall(f'"x": "{tok}"') == [tok]
    key = b'"HF_' + b'TOKEN"'
    assert SECRET_PAIR.search(key + b": " + json.dumps(FAKE_HF).encode())
    m = SECRET_PAIR.search(key + b": " + json.dumps("<redacted>").encode())
    assert any(ph in m.group(2) for ph in PLACEHOLDERS)  # a placeholder is not a finding


def test_scrub_rules():
    pw, api = "hunter" + "22", "abc" + "12345"
    got = scrub({"env": {"HF_TOKEN": FAKE_HF, "PATH": "/usr/bin"}, "WANDB_API_KEY": api,
                 "db_password": pw, "num_tokens": 4096, "keys": "a,b", "author": "ann",
                 "machine_key": "H100x8", "cmd": f"python train.py --hub-token {FAKE_HF}", "nested": [{"Secret": "s"}]})
    # WANDB_API_KEY is named like an environment variable: dropped and counted (session 36), not only redacted
    assert got == {"env": "<removed: 2 environment variables>",
                   "db_password": "<redacted>", "num_tokens": 4096, "keys": "a,b", "author": "ann",
                   "machine_key": "H100x8", "cmd": "python train.py --hub-token <redacted>",
                   "nested": [{"Secret": "<redacted>"}], "environment_variables_removed": 1}


def _trace_with_secrets(path: Path) -> None:
    doc = {
        "metadata": {"system": {"env": {"HF_TOKEN": FAKE_HF, "SOME_VAR": ENV_VALUE}}},
        "distributedInfo": {"rank": 0, "world_size": 1, "backend": "nccl", "auth_token": FAKE_GH,
                            "env": {"AWS_ACCESS_KEY_ID": FAKE_AWS, "OTHER": ENV_VALUE},
                            "init_method": f"tcp://10.0.0.1:29500?token={FAKE_HF}"},
        "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0,
                              "numSms": 132, "api_key": FAKE_GH}],
        "traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 30,
             "args": {"External id": 1}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 105, "dur": 5,
             "args": {"correlation": 7, "External id": 1}},
            {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 112, "dur": 20,
             "args": {"device": 0, "stream": 7, "correlation": 7, "External id": 1, "grid": [4, 1, 1],
                      "block": [128, 1, 1]}},
        ],
    }
    path.write_text(json.dumps(doc))


def test_no_report_copies_environment_or_secrets(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    trace = tmp_path / "run.pt.trace.json"
    _trace_with_secrets(trace)
    outs = {k: tmp_path / f"out.{k}" for k in ("json", "html", "markdown", "perfetto")}
    assert main(["analyze", "-q", "--no-cache", str(trace), "--json", str(outs["json"]), "--html",
                 str(outs["html"]), "--markdown", str(outs["markdown"]), "--perfetto", str(outs["perfetto"])]) == 0
    store = tmp_path / "store"
    assert main(["baseline", "save", str(outs["json"]), "--name", "main", "--store", str(store)]) == 0
    written = list(outs.values()) + [p for p in store.rglob("*") if p.is_file()]
    assert len(written) >= 6
    rep = json.loads(outs["json"].read_text())
    assert rep["sources"], "the JSON report has a source"  # the scrub keeps the rest of the metadata
    for p in written:
        text = p.read_text(encoding="utf-8", errors="replace")
        for needle in (FAKE_HF, FAKE_GH, FAKE_AWS, ENV_VALUE):
            assert needle not in text, f"{p.name} holds {needle[:8]}…"
    # the cache too (the Timeline is stored with its meta)
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["analyze", "-q", str(trace)]) == 0
    for p in (tmp_path / "cache").rglob("*"):
        if p.is_file():
            blob = p.read_bytes()
            assert FAKE_HF.encode() not in blob and FAKE_GH.encode() not in blob and ENV_VALUE.encode() not in blob


def test_sqlite_metadata_is_scrubbed(tmp_path):
    # nsys exports carry name/value metadata tables; a secret-looking one must not reach the Timeline meta.
    from gpulens.timeline import TimelineMeta

    meta = TimelineMeta(sources=[{"path": "x.sqlite", "export": {"CUDA_VISIBLE_DEVICES": "0",
                                                                   "NSYS_API_TOKEN": FAKE_HF}}],
                        warnings=[f"read {FAKE_GH} from command line"])
    # both keys are named like environment variables: dropped, counted (session 36); the token never copied
    assert meta.sources[0]["export"] == {"environment_variables_removed": 2}
    assert meta.warnings == ["read <redacted> from command line"]
    assert sqlite3  # noqa: the import documents that SQLite metadata goes through the same TimelineMeta
