"""Each mutation kind of tests/fuzz_s8.py once on a small seed of its format, through analyze and every report
(:func:`tests.fuzz_fresh.check`): no internal error, no hang, no impossible figure or bad text. The seeds are the
fuzz seeds (tests/fuzzing.py); the full round is ``python tests/fuzz_s8.py --seed S --count N --workdir DIR``."""

from __future__ import annotations

import random
import shutil

import pytest

from . import fuzz_s8, fuzzing

JSON_KINDS = ["utf16", "sci_ts", "shuffle", "overlap", "flows", "ids_str", "nul", "num_every"]
CSV_KINDS = ["utf16", "sci_ts", "shuffle", "nul", "sep_line", "semicolon", "quoted_nl", "csv_cols"]
SQLITE_KINDS = ["sqlite_2gb", "sqlite_cols"]


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return fuzzing.write_seeds(tmp_path_factory.mktemp("seeds"), extended=False)


def _mutant(seeds, fmt, kind, tmp_path, seed=3):
    src = seeds[fmt]
    p = tmp_path / src.name
    shutil.copyfile(src, p)
    rng = random.Random(seed)
    raw = p.read_bytes()
    if kind.startswith("sqlite"):
        fuzz_s8.mutate_sqlite(rng, kind, p)
        return p
    import gzip

    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    if kind == "utf16":
        out = data.decode("utf-8", errors="replace").encode("utf-16")
    elif kind == "nul":
        out = fuzz_s8.nul(rng, data)
    elif kind == "sci_ts" and fmt == "kineto":
        out = fuzz_s8.sci_ts(data)
    elif fmt == "kineto":
        out = fuzz_s8.mutate_json(rng, kind, data)
    else:
        out = fuzz_s8.mutate_csv(rng, kind, data)
    assert out is not None and out != data  # the mutation applies to this seed
    p.write_bytes(out)
    return p


@pytest.mark.parametrize("fmt, kind", [("kineto", k) for k in JSON_KINDS] + [("rocprof_v1", k) for k in CSV_KINDS]
                         + [("nsys_sqlite", k) for k in SQLITE_KINDS])
def test_mutation_kind_is_handled(seeds, tmp_path, fmt, kind):
    from .fuzz_fresh import check

    p = _mutant(seeds, fmt, kind, tmp_path)
    assert check(p, strict=True) is None
    assert check(p, strict=False) is None


#: Kernel counts of the seeds, from the case README: B13 (the kineto seed) 4 kernels; B17 v1 (rocprof_v1) 2.
SEED_KERNELS = {"kineto": 4, "rocprof_v1": 2}


@pytest.mark.parametrize("fmt, kind", [("kineto", k) for k in ("utf16", "sci_ts", "shuffle", "flows", "ids_str",
                                                                 "overlap")]
                         + [("rocprof_v1", k) for k in ("utf16", "sci_ts", "shuffle", "sep_line", "semicolon",
                                                        "quoted_nl")])
def test_mutation_that_keeps_the_content_keeps_every_kernel(seeds, tmp_path, fmt, kind):
    # re-encoded, re-ordered, re-delimited, ids as text, partner-less flows, overlaps: the same kernels are read
    from gpulens.collectors import collect

    k = collect(_mutant(seeds, fmt, kind, tmp_path)).gpu_events()
    assert int((k["kind"] == "kernel").sum()) == SEED_KERNELS[fmt]
