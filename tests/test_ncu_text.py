"""Nsight Compute's text report (``ncu ./app > ncu.txt``, no ``--csv``): the form most often committed beside CUDA
code (e.g. a T4 sgemm log and A100/RTX 3060 logs quoted in public repositories' READMEs). The reports below are
written here in ncu's layout (fixed-width tables sized by their dash rules, thousands separators, ncu's units); every
expected figure is read off the text by hand."""

from __future__ import annotations

import csv
import json

from gpulens.cli import main
from gpulens.collectors import collect, sniff

_SOL = """\
    Section: GPU Speed Of Light Throughput
    ----------------------- ------------- -------------
    Metric Name               Metric Unit  Metric Value
    ----------------------- ------------- -------------
    DRAM Frequency          cycle/nsecond          5.00
    SM Frequency            cycle/usecond        584.99
    Elapsed Cycles                  cycle    56,344,784
    Memory Throughput                   %         49.23
    DRAM Throughput                     %          0.47
    Duration                      msecond         96.32
    L1/TEX Cache Throughput             %         98.45
    L2 Cache Throughput                 %          0.40
    SM Active Cycles                cycle 55,313,213.62
    Compute (SM) Throughput             %          5.97
    ----------------------- ------------- -------------

    OPT   This kernel exhibits low compute throughput and memory bandwidth utilization relative to the peak performance
          of this device. Look at Scheduler Statistics and Warp State Statistics for potential reasons.

    Section: Launch Statistics
    -------------------------------- --------------- ---------------
    Metric Name                          Metric Unit    Metric Value
    -------------------------------- --------------- ---------------
    Block Size                                                 1,024
    Function Cache Configuration                     CachePreferNone
    Grid Size                                                  1,024
    Registers Per Thread             register/thread              49
    Shared Memory Configuration Size           Kbyte           32.77
    Dynamic Shared Memory Per Block       byte/block               0
    Static Shared Memory Per Block        byte/block               0
    Threads                                   thread       1,048,576
    Waves Per SM                                               25.60
    -------------------------------- --------------- ---------------

    Section: Occupancy
    ------------------------------- ----------- ------------
    Metric Name                     Metric Unit Metric Value
    ------------------------------- ----------- ------------
    Theoretical Occupancy                     %          100
    Achieved Occupancy                        %        97.95
    ------------------------------- ----------- ------------

    INF   This kernel's theoretical occupancy is not impacted by any block limit.
"""

REPORT = ("M=1024, N=1024, K=1024\n\n==PROF== Connected to process 828 (/tmp/x/cuda_exec.out)\n"
          "==PROF== Profiling \"sgemm\" - 0: 0%....50%....100% - 8 passes\n==PROF== Disconnected from process 828\n"
          "[828] cuda_exec.out@127.0.0.1\n"
          "  sgemm(int, int, int, float, float, const float *, const float *, float *) (32, 32, 1)x(32, 32, 1), "
          "Context 1, Stream 7, Device 0, CC 7.5\n  \n" + _SOL +
          "  add(int, float *, float *) (4, 1, 1)x(256, 1, 1), Context 1, Stream 13, Device 0, CC 7.5\n"
          "    Section: GPU Speed Of Light Throughput\n"
          "    ----------------------- ------------- ------------\n"
          "    Metric Name               Metric Unit Metric Value\n"
          "    ----------------------- ------------- ------------\n"
          "    Duration                      usecond         3.58\n"
          "    Memory Throughput                   %         1.71\n"
          "    ----------------------- ------------- ------------\n")

#: ncu 2019–2020 printed the launch's date instead of its grid, block and device.
OLD = ("[4242] matmul@127.0.0.1\n"
       "  matmul_kernel(float*, float*, float*, int), 2020-Sep-15 10:58:22, Context 1, Stream 7\n"
       "    Section: GPU Speed Of Light\n"
       "    ---------------------------------------------------------------------- --------------- ------------------\n"
       "    Metric Name                                                                Metric Unit       Metric Value\n"
       "    ---------------------------------------------------------------------- --------------- ------------------\n"
       "    Duration                                                                       msecond               1.25\n"
       "    SM [%]                                                                               %              12.50\n"
       "    ---------------------------------------------------------------------- --------------- "
       "------------------\n")


def write_report(path) -> None:
    """The two-launch report above, as a file (the fuzz seed of this format)."""
    path.write_text(REPORT)


def test_text_report_launches_and_metrics(tmp_path):
    p = tmp_path / "ncu.txt"
    p.write_text(REPORT)
    assert sniff(p).name == "ncu_text"
    tl = collect(p)
    k = tl.of_kind("kernel").reset_index(drop=True)
    assert list(k["name"].astype(str)) == [
        "sgemm(int, int, int, float, float, const float *, const float *, float *)", "add(int, float *, float *)"]
    assert list(k["dur_ns"]) == [96_320_000, 3_580]  # 96.32 msecond, 3.58 usecond
    assert list(k["stream_id"]) == [7, 13] and list(k["device_id"]) == [0, 0] and list(k["pid"]) == [828, 828]
    assert (k.loc[0, "grid_x"], k.loc[0, "grid_y"], k.loc[0, "block_x"], k.loc[0, "block_y"]) == (32, 32, 32, 32)
    assert (k.loc[1, "grid_x"], k.loc[1, "block_x"]) == (4, 256)
    assert k.loc[0, "regs_per_thread"] == 49 and k.loc[0, "smem_static_bytes"] == 0
    c = tl.counters
    first = c[c["event_id"] == k.loc[0, "event_id"]].set_index("metric")["value"]
    assert first["Elapsed Cycles"] == 56_344_784 and first["SM Active Cycles"] == 55_313_213.62
    assert first["Achieved Occupancy"] == 97.95 and first["L1/TEX Cache Throughput"] == 98.45
    assert first["Shared Memory Configuration Size"] == 32_770  # Kbyte = 1000 bytes, as in the CSV reader
    # the two rule messages (OPT, INF) are rule results of the sgemm launch, named by their section, not metrics
    r = tl.tables["ncu_rules"]
    assert list(r["type"]) == ["OPT", "INF"] and list(r["rule"]) == ["GPU Speed Of Light Throughput", "Occupancy"]
    assert r["description"].iloc[0].startswith("This kernel exhibits low compute throughput and memory bandwidth")
    assert r["description"].iloc[0].endswith("potential reasons.") and r["estimated_speedup_pct"].isna().all()
    assert "OPT" not in set(c["metric"].astype(str))


def test_text_report_equals_the_details_csv_of_the_same_launch(tmp_path):
    # the same figures written as `ncu --csv --page details` rows: one reader's Counters are the other's
    txt = tmp_path / "one.txt"
    txt.write_text(REPORT.split("  add(")[0])
    rows = []
    section = ""
    for ln in _SOL.splitlines():
        s = ln.strip()
        if s.startswith("Section: "):
            section = s[len("Section: "):]
        elif s and not set(s) <= {"-", " "} and not s.startswith(("Metric Name", "OPT", "INF", "of this device")):
            parts = ln.rstrip().split()
            # name = leading words, value = last field, unit = the field before it when the row has one
            name_end = {"Block Size": 2, "Grid Size": 2, "Waves Per SM": 3, "Function Cache Configuration": 3}
            n = next((v for k, v in name_end.items() if s.startswith(k)), None)
            if n is None:
                rows.append((section, " ".join(parts[:-2]), parts[-2], parts[-1]))
            else:
                rows.append((section, " ".join(parts[:n]), "", parts[-1]))
    cp = tmp_path / "one.csv"
    with open(cp, "w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
                    "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value"])
        for r in rows:
            w.writerow(["0", "828", "cuda_exec.out", "127.0.0.1",
                        "sgemm(int, int, int, float, float, const float *, const float *, float *)", "1", "7",
                        "(32, 32, 1)", "(32, 32, 1)", "0", "7.5", *r])
    a, b = collect(txt), collect(cp)
    cols = ["name", "dur_ns", "stream_id", "device_id", "grid_x", "grid_y", "block_x", "block_y", "regs_per_thread"]
    assert a.events[cols].astype(str).values.tolist() == b.events[cols].astype(str).values.tolist()
    key = ["metric", "unit", "value"]
    assert sorted(map(tuple, a.counters[key].astype(str).values)) == sorted(map(tuple, b.counters[key].astype(str)
                                                                                .values))


def test_old_ncu_launch_line_without_grid(tmp_path):
    p = tmp_path / "old.log"
    p.write_text(OLD)
    k = collect(p).of_kind("kernel")
    assert list(k["name"].astype(str)) == ["matmul_kernel(float*, float*, float*, int)"]
    assert list(k["dur_ns"]) == [1_250_000] and list(k["stream_id"]) == [7] and list(k["pid"]) == [4242]


def test_l1_saturated_kernel_is_memory_bound_with_l1_advice(tmp_path, capsys):
    # older ncu: Memory Throughput 49.23 % beside L1/TEX Cache Throughput 98.45 % (DRAM 0.47 %, SM 5.97 %): the
    # busiest unit is L1 at its roof, so the kernel is memory-bound (was latency/occupancy-bound, told to keep more
    # bytes in flight) with the L1/shared-memory advice (a GEMM-named kernel had been told to batch more rows), and
    # its time at stake is its distance to that roof over the whole run: L1/TEX 98.45 % is of the cycles the SMs were
    # active (…pct_of_peak_sustained_active), 55,313,213.62 of 56,344,784 elapsed (SM Active / Elapsed Cycles) —
    # 96.32 ms × (1 − 0.9845 × 55,313,213.62 / 56,344,784) = 3.23 ms
    p = tmp_path / "sgemm.txt"
    p.write_text(REPORT.split("  add(")[0])
    js = tmp_path / "r.json"
    assert main(["analyze", str(p), "--json", str(js)]) in (0, 1)
    out = capsys.readouterr().out
    verdict = next(ln for ln in out.splitlines() if ln.startswith("Verdict:"))
    assert verdict.startswith("Verdict: memory-bound")
    # DRAM 0.47 % reads "0.5 %" (units.pct_words: the tables' one decimal), never a false "0 %"; L1 over the run
    # 98.45 × 55,313,213.62 / 56,344,784 = 96.65 % → "96.6 %"
    # the report records 0 B of static and dynamic shared memory per block (lines 43–44 above): its L1 traffic is
    # its global loads, and the advice says so (s36: tiling, not shared-memory bank conflicts)
    assert "Its busiest memory unit is L1" in out  # the full figures below (the console wraps)
    doc = json.loads(js.read_text())
    rows = doc["sources"][0]["analyses"]["verdicts"]["table"]
    row = next(r for r in rows if str(r["name"]).startswith("sgemm"))
    assert row["verdict"] == "memory-bound"
    # the evidence names the unit that made it memory-bound, not "memory 49 % of peak → memory-bound" alone
    assert "memory 49.2 % of peak (L1/TEX 96.6 % of peak over its elapsed cycles) → memory-bound" in row["evidence"]
    assert ("Its busiest memory unit is L1 (96.6 % of peak over its elapsed cycles; DRAM 0.5 %) and it uses no shared memory"
            in row["next_steps"][0])
    assert abs(row["time_at_stake_ns"] - 96_320_000 * (1 - 0.9845 * 55_313_213.62 / 56_344_784)) <= 1


#: ncu 2021–2022 text: no header row between the rules, the SOL figures labelled "SM [%]" / "Memory [%]" / "SOL FB"
#: (2019–2020 section names), and — as saved in a public training repository's logs — rows indented two columns
#: deeper than their rule.
P40 = ("[278022] vector_add@127.0.0.1\n"
       "  vadd(float const *,float const *,float*,int), 2022-Jun-02 19:23:13, Context 1, Stream 7\n"
       "    Section: GPU Speed Of Light\n"
       "    ------------------------------------------ --------------- ----------\n"
       "    Memory Frequency                                       Ghz       7.22\n"
       "    SOL FB                                                   %      82.65\n"
       "    Memory [%]                                               %      82.65\n"
       "    Duration                                           msecond       1.67\n"
       "    SOL L2                                                   %      16.64\n"
       "    SM [%]                                                   %       9.61\n"
       "    SOL TEX                                                  %       9.61\n"
       "    ------------------------------------------ --------------- ----------\n"
       "    WRN   a rule message right under the closing rule\n\n"
       "  vsub(float const *,float*,int), 2022-Jun-02 19:23:14, Context 1, Stream 7\n"
       "    Section: GPU Speed Of Light Throughput\n"
       "    ------------------------------------------ --------------- ----------\n"
       "      Duration                                         usecond     114.85\n"
       "      Compute (SM) [%]                                       %       0.88\n"
       "      Memory [%]                                             %       2.07\n"
       "      ------------------------------------------ --------------- ----------\n")


def test_header_less_tables_old_labels_and_shifted_rows(tmp_path, capsys):
    p = tmp_path / "p40.profile.output"
    p.write_text(P40)
    tl = collect(p)
    k = tl.of_kind("kernel").reset_index(drop=True)
    assert list(k["dur_ns"]) == [1_670_000, 114_850]  # 1.67 msecond; 114.85 usecond read from the shifted rows
    c = tl.counters
    second = c[c["event_id"] == k.loc[1, "event_id"]].set_index("metric")["value"]
    assert second["Compute (SM) [%]"] == 0.88 and second["Memory [%]"] == 2.07
    assert "WRN" not in set(c["metric"].astype(str))
    js = tmp_path / "r.json"
    assert main(["analyze", str(p), "--json", str(js)]) in (0, 1)
    an = json.loads(js.read_text())["sources"][0]["analyses"]
    rows = {str(r["name"]).split("(")[0]: r for r in an["verdicts"]["table"]}
    sol = {str(r["name"]).split("(")[0]: r for r in an["speed_of_light"]["table"]}
    # the old labels are the speed of light: vadd memory 82.65 % (was undetermined: no figure recognised), its time
    # at stake the distance to that roof, 1.67 ms × (1 − 0.8265); vsub at 0.88 % / 2.07 % is latency-limited
    assert rows["vadd"]["verdict"] == "memory-bound"
    assert abs(rows["vadd"]["time_at_stake_ns"] - 1_670_000 * (1 - 0.8265)) <= 1
    # the metric each figure came from: the speed-of-light table's evidence (the verdict's no longer repeats it)
    assert "compute: SM [%]; memory: Memory [%]; DRAM: SOL FB" in sol["vadd"]["evidence"]
    assert (sol["vsub"]["compute_pct"], sol["vsub"]["memory_pct"], sol["vsub"]["bound"]) == (0.88, 2.07, "latency")


#: ``--print-summary per-kernel`` (ncu 2023+): a device line, kernels with "Invocations N", Minimum/Maximum/Average.
SUMMARY = ("[11139] a.out@127.0.0.1\n"
           "  Device 0, CC 9.0\n"
           "    bitonic_merge(int *, int, int, int) (16384, 1, 1)x(512, 1, 1), Invocations 3\n"
           "      Section: GPU Speed Of Light Throughput\n"
           "      ----------------------- ----------- ------- ------- -------\n"
           "      Metric Name             Metric Unit Minimum Maximum Average\n"
           "      ----------------------- ----------- ------- ------- -------\n"
           "      Duration                    usecond    9.00   11.50   10.00\n"
           "      Memory Throughput                 %   56.59   72.29   64.43\n"
           "      ----------------------- ----------- ------- ------- -------\n\n"
           "    fill_padding(int *, int, int, int) (52947, 1, 1)x(128, 1, 1), Invocations 1\n"
           "      Section: GPU Speed Of Light Throughput\n"
           "      ----------------------- ----------- ------- ------- -------\n"
           "      Metric Name             Metric Unit Minimum Maximum Average\n"
           "      ----------------------- ----------- ------- ------- -------\n"
           "      Duration                    usecond    5.00    5.00    5.00\n"
           "      ----------------------- ----------- ------- ------- -------\n")


def test_per_kernel_summary_becomes_its_invocations(tmp_path):
    p = tmp_path / "summary.txt"
    p.write_text(SUMMARY)
    tl = collect(p)
    k = tl.of_kind("kernel")
    names = [n.split("(")[0] for n in k["name"].astype(str)]
    assert names == ["bitonic_merge"] * 3 + ["fill_padding"]  # 3 + 1 invocations
    assert list(k["dur_ns"]) == [10_000] * 3 + [5_000]  # each the Average column, not "9.00 11.50 10.00"
    assert set(k["device_id"]) == {0} and list(k["grid_x"]) == [16384] * 3 + [52947]
    mem = tl.counters[tl.counters["metric"] == "Memory Throughput"]
    assert len(mem) == 3 and set(mem["value"]) == {64.43}
    assert any("3 launches are each shown with their kernel's average" in w for w in tl.meta.warnings)


def test_absurd_invocation_count_is_one_line_error(tmp_path):
    p = tmp_path / "summary.txt"
    p.write_text(SUMMARY.replace("Invocations 3", "Invocations 900000000"))
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 2


def test_2024_layout_units_and_sm_count(tmp_path):
    # ncu 2024+ prints "us" / "Mhz" units, "# SMs", text values ("all") and "Est. Speedup" rule messages with
    # continuation lines under them (layout as in a public fused-RMSNorm repository's ncu.log, values written here)
    p = tmp_path / "ncu.log"
    p.write_text("[1803] native@127.0.0.1\n"
                 "  void fused<float, 256>(const T1 *, T1 *, int) (3, 1, 1)x(256, 1, 1), Context 1, Stream 7, "
                 "Device 0, CC 7.5\n"
                 "    Section: GPU Speed Of Light Throughput\n"
                 "    ----------------------- ----------- ------------\n"
                 "    Metric Name             Metric Unit Metric Value\n"
                 "    ----------------------- ----------- ------------\n"
                 "    SM Frequency                    Mhz       576.84\n"
                 "    Duration                         us         5.66\n"
                 "    ----------------------- ----------- ------------\n\n"
                 "    Section: Launch Statistics\n"
                 "    -------------------------------- --------------- ---------------\n"
                 "    Metric Name                          Metric Unit    Metric Value\n"
                 "    -------------------------------- --------------- ---------------\n"
                 "    Registers Per Thread             register/thread              52\n"
                 "    Static Shared Memory Per Block        byte/block              36\n"
                 "    # SMs                                         SM              40\n"
                 "    Enabled TPC IDs                                              all\n"
                 "    -------------------------------- --------------- ---------------\n\n"
                 "    OPT   Est. Speedup: 92.5%\n"
                 "          The grid for this launch is configured to execute only 3 blocks, which is less than the\n"
                 "          GPU's 40 multiprocessors.\n")
    tl = collect(p)
    k = tl.of_kind("kernel").iloc[0]
    assert (k["dur_ns"], k["regs_per_thread"], k["smem_static_bytes"]) == (5_660, 52, 36)
    assert tl.meta.devices[0]["num_sms"] == 40
    c = tl.counters.set_index("metric")["value"]
    assert c["SM Frequency"] == 576.84e6  # Mhz → Hz
    assert "all" not in set(tl.counters["metric"].astype(str))
    r = tl.tables["ncu_rules"].iloc[0]  # "Est. Speedup: 92.5%" heads the message; its text follows
    assert (r["type"], r["rule"], r["estimated_speedup_pct"]) == ("OPT", "Launch Statistics", 92.5)
    assert r["description"] == ("The grid for this launch is configured to execute only 3 blocks, which is less "
                                "than the GPU's 40 multiprocessors.")
