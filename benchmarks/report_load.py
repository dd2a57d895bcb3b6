"""Size and cold-open time of the HTML report in headless Chromium.

Usage::

    python benchmarks/report_load.py [TRACE ...] [--shots DIR]

For each input (default: the bundled demo trace) the report is rendered, written to a temporary file and opened in
a fresh headless Chromium (new profile, so nothing is cached). Printed per input: the file size in bytes and MB,
the *cold open* time — from navigation start until every chart of the first tab has rendered (the page's own
``gpulens-first-screen`` performance mark, set when the answer banner and the Summary's chart are drawn) — and
when plotly.js is decompressed and ready for the other tabs (mark ``gz2``; it loads after the first paint).
Issue 18 asks for ≤ 2.5 MB and a cold open ≤ 1.5 s. Each input is opened ``--repeat`` times (default 3) and the
median is printed, since the machine may be shared.
With ``--shots DIR`` a 1280×800 screenshot of the first viewport is saved per input.

Needs Debian's ``chromium`` and ``chromium-driver`` and selenium (``pip install '.[test]'``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import gpulens
from gpulens.reports import html

_READY = """var m={};performance.getEntriesByType('mark').forEach(function(e){m[e.name]=e.startTime;});
return (m['gpulens-first-screen']!==undefined&&m['gz2']!==undefined)?[m['gpulens-first-screen'],m['gz2']]:null;"""


def open_cold(path: Path, shot: Path | None = None) -> tuple[float, float]:
    """(first screen, plotly ready): seconds from navigation start until the first tab's charts are drawn, and
    until plotly.js is loaded, in a fresh Chromium profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="gpulens-bench-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
              "--window-size=1280,800", f"--user-data-dir={profile}"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=opts)
    try:
        drv.get(path.as_uri())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            t = drv.execute_script(_READY)
            if t is not None:
                if shot is not None:
                    drv.save_screenshot(str(shot))
                return float(t[0]) / 1000, float(t[1]) / 1000
            time.sleep(0.02)
        raise TimeoutError(f"{path}: charts not drawn within 30 s")
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="*", help="trace files or folders (default: the demo trace)")
    ap.add_argument("--shots", type=Path, help="folder for first-viewport screenshots")
    ap.add_argument("--repeat", type=int, default=3, help="cold opens per input (the median is printed)")
    args = ap.parse_args(argv)
    from gpulens.cli.analyze import demo_trace_path

    inputs = args.inputs or [str(demo_trace_path())]
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    print(f"{'input':50} {'bytes':>10} {'MB':>6} {'cold open [s]':>14} {'plotly ready [s]':>17}")
    with tempfile.TemporaryDirectory() as tmp:
        for i, inp in enumerate(inputs):
            page = html.render(gpulens.analyze([inp]))
            out = Path(tmp) / f"report{i}.html"
            out.write_text(page, encoding="utf-8")
            size = out.stat().st_size
            shot = args.shots / f"{Path(inp).name}.png" if args.shots else None
            runs = sorted(open_cold(out, shot if k == 0 else None) for k in range(max(1, args.repeat)))
            first, plotly = runs[len(runs) // 2]
            print(f"{inp[-50:]:50} {size:>10} {size / 1e6:>6.2f} {first:>14.2f} {plotly:>17.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
