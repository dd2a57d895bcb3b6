"""The kernel verdict table's columns: name → ``"meaning [unit]"`` (:class:`gpulens.analyzers.verdicts.Verdicts`;
reporters format every cell from the declared unit)."""

COLUMNS = {
    "name": "kernel name",
    "kind": "kernel or comm",
    "calls": "launches",
    "time_ns": "effective GPU time (hotspots) [ns]",
    "share": "share of all kernel time [share]",
    "cumulative_share": "share of all kernel time of this row and the rows above it (the table is most GPU time "
                        "first: the first n rows' share); unknown from the first row without a share [share]",
    "verdict": "compute-bound, memory-bound, latency/occupancy-bound, below-roofs (below both roofs, latency or "
               "occupancy not shown), launch-bound, communication-bound, undetermined",
    "time_at_stake_ns": "GPU time the fix could save at most (see verdict_rules) [ns]; unknown when not quantifiable",
    "stake_note": "what the time at stake is when it is not a share of the kernel's own GPU time (launch-bound: "
                  "the GPU idle before its launches, which can exceed its GPU time), the measured unit it is the "
                  "distance to, or the launch floor that capped it (its time less 2 µs for each launch: even an "
                  "empty kernel takes that much GPU time), or why it is unknown beside the kernel's "
                  "wave-quantization stake (wave_stake_note) [note]",
    "evidence": "the figures the verdict rests on",
    "next_steps": "one or two concrete next steps",
    "inputs": "analyses and collectors the verdict used",
}
