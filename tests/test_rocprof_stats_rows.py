"""rocprof ``results.stats.csv`` rows whose counts or durations are not numbers are dropped and counted (found by
the fuzz test: a mangled ``TotalDurationNs`` cell crashed the hotspots ranking with exit 70)."""

import gpulens


def test_bad_stats_rows_are_dropped_and_counted(tmp_path):
    f = tmp_path / "results.stats.csv"
    f.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                 '"k_ok",10,5000,500,62.5\n'
                 '"k_bad",10,1kkk43708044,1437080,9.2\n'
                 '"k_neg",-3,3000,1000,37.5\n'
                 '"k_ok2",4,3000,750,37.5\n')
    s = gpulens.analyze([f]).sources[0]
    hs = s.results["hotspots"].table
    # the two valid rows only: 5000 + 3000 ns, ranked by total
    assert list(hs["name"]) == ["k_ok", "k_ok2"]
    assert int(hs["total_ns"].sum()) == 8000
    assert any("2 summary rows dropped" in w for w in s.timeline.meta.warnings)
