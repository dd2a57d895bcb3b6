"""HTML reporter: one self-contained page (plotly.js embedded once, no network, no other resource) with tabs.

Use::

    import gpulens
    from gpulens.reports import html
    page = html.render(gpulens.analyze(["run.pt.trace.json.gz"]))   # -> str
    Path("report.html").write_text(page, encoding="utf-8")

or ``gpulens analyze run.pt.trace.json.gz --html report.html``.

Tabs: Summary (the answer banner, where the GPU time went, key figures, findings by time at stake), Time breakdown
(stacked bars per rank/GPU), Hot kernels (the performance-critical set; sortable table), Roofline, Occupancy,
Stalls & verdicts, Timeline (CPU thread and GPU stream lanes at several levels of detail from the
``stream_timeline`` analyzer, redrawn on zoom; see ``_html_timeline``), Multi-rank, Other analyses (every other
result, drawn generically), Kernel details (one page per hot kernel) and Environment (inputs, devices, versions,
warnings). A tab whose analysis is missing says why. Each chart has a one-sentence takeaway (also its accessible
name) and its data as a table; every table has a filter box; the open tab is in the URL hash.

Size and speed: plotly.js travels gzip-compressed (the official cartesian bundle when the installed plotly matches
it: about 0.66 MB embedded) and is decompressed by the browser after the first paint; the Summary's chart is plain
HTML, so the first screen needs no plotly. Tables are capped (200 rows per table, fewer with many inputs) and the
timeline payload is bounded, so a report stays under :data:`SIZE_BUDGET_BYTES` whatever the trace size. Charts are
drawn when their tab is first shown (hidden plots get no size). The renderer computes nothing: it draws the
Report's tables.
"""

from __future__ import annotations

from typing import Any, Callable

import base64
import functools
import gzip
import re

from gpulens.report import Report, SourceReport
from gpulens.reports import _html_analyses as A
from gpulens.reports import _html_kernel as K
from gpulens.reports import _html_pages as P
from gpulens.reports import _html_roofline as R
from gpulens.reports._html_timeline import TIMELINE_JS, timeline_page
from gpulens.reports._format import source_vendor
from gpulens.reports._html_parts import (HOT_RANKS, KERNEL_LINKS, PLOT_CONFIG, Page, Panel, esc, hot_ranks,
                                         panel_html, script_json)
from gpulens.reports._names import label_scope

#: The size every report stays under (bytes): plotly.js compressed is about 1.96 MB of it.
SIZE_BUDGET_BYTES = 2_500_000
#: Results with a dedicated page (everything else goes to "Other analyses").
DEDICATED = ("hotspots", "breakdown", "stream_timeline", "rank_kernels", "roofline", "occupancy")

PageBuilder = Callable[[SourceReport, int, int], list[Any]]


def _other(s: SourceReport, rows: int, segs: int) -> list[Any]:
    """The analyses without a page of their own; those the input had no data for are one plain "Not analysed" list
    at the end, as in the Markdown report (:func:`~gpulens.reports._coverage.analysis_coverage`'s ``no_data``) —
    not a highlighted box each: an ordinary Kineto trace simply has no counter-collection rows, nothing to warn of."""
    from gpulens.reports._coverage import analysis_coverage

    skip = set(DEDICATED) | set(A.verdict_names(s))
    out: list[Any] = []
    for name, r in s.results.items():
        if name not in skip and r.applies and not r.skipped:  # another vendor's analysis (ncu rules on AMD): not listed
            out += A.generic_panels(name, r, rows, source_vendor(s))
    absent = [x for x in analysis_coverage(s.results, source_vendor(s))["no_data"] if x["analysis"] not in skip]
    if absent:
        out.append('<section class="notrun"><h3>Not analysed</h3><ul>' + "".join(
            f"<li><strong>{esc(x['title'])}</strong>: {esc(x['reason'])}</li>" for x in absent) + "</ul></section>")
    return out or [A.empty_html("Other analyses", "no other analysis in this report")]


#: (page id, tab title, builder(source, max_rows, max_segments)).
PAGES: tuple[tuple[str, str, PageBuilder], ...] = (
    ("summary", "Summary", lambda s, r, g: P.summary_page(s, r)),
    ("breakdown", "Time breakdown", lambda s, r, g: P.breakdown_page(s, r)),
    ("kernels", "Hot kernels", lambda s, r, g: P.kernels_page(s, r)),
    ("roofline", "Roofline", lambda s, r, g: R.roofline_page(s, r)),
    ("occupancy", "Occupancy", lambda s, r, g: A.occupancy_page(s, r)),
    ("verdicts", "Stalls & verdicts", lambda s, r, g: A.verdicts_page(s, r)),
    ("timeline", "Timeline", timeline_page),
    ("ranks", "Multi-rank", lambda s, r, g: P.multirank_page(s, r)),
    ("other", "Other analyses", _other),
    ("kernel", "Kernel details", lambda s, r, g: K.kernel_pages(s, KERNEL_LINKS.get())),
)


def build_pages(report: Report, scale: float = 1.0) -> list[Page]:
    """The report's tabs, each holding the blocks of every source (headed by the source's label when several).

    Args:
        scale: shrinks the per-input caps (table rows: 200 × scale / inputs, at least 5; timeline segments drawn:
            20000 × scale / inputs, at least 50).
    """
    n = max(len(report.sources), 1)
    rows, segs = max(5, int(200 * scale / n)), max(50, int(20000 * scale / n))
    pages = []
    links = [K.kernel_links(s, si, rows) for si, s in enumerate(report.sources)]
    ranks = [hot_ranks(s) for s in report.sources]  # each kernel's "#N" on every page
    for pid, title, build in PAGES:
        page = Page(pid, title)
        for si, s in enumerate(report.sources):
            if n > 1:
                page.blocks.append(f'<h2 class="source">{esc(s.label)}</h2>')
            token, rtoken = KERNEL_LINKS.set(links[si]), HOT_RANKS.set(ranks[si])
            try:
                page.blocks += build(s, rows, segs)
            finally:
                KERNEL_LINKS.reset(token)
                HOT_RANKS.reset(rtoken)
        pages.append(page)
    env = Page("environment", "Environment")
    for s in report.sources:
        if n > 1:
            env.blocks.append(f'<h2 class="source">{esc(s.label)}</h2>')
        env.blocks += P.environment_page(s, rows, report.tool_version, report.created)
    pages.append(env)
    return pages


def render(report: Report) -> str:
    """Render ``report`` as one self-contained HTML document (str, UTF-8 text).

    The page embeds plotly.js once and loads nothing else; every name from a trace is escaped. When the page
    would pass :data:`SIZE_BUDGET_BYTES` (many inputs with long names), it is rendered again with smaller table
    and timeline caps (each table says how many rows it shows).
    """
    for scale in (1.0, 0.5, 0.25, 0.1, 0.05):
        with label_scope(report):  # one label per kernel across the tabs, tables and charts
            page = _render_pages(report, build_pages(report, scale))
        if len(page.encode("utf-8", "surrogatepass")) < SIZE_BUDGET_BYTES:
            break
    return page


#: The official plotly.js cartesian bundle shipped in gpulens/data (gzip; see data/PROVENANCE.md), its plotly.js
#: version, and the trace types it draws.
CARTESIAN_BUNDLE = "plotly-cartesian-4.1.1.min.js.gz"
CARTESIAN_VERSION = "4.1.1"
CARTESIAN_TYPES = frozenset({"bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour",
                             "image", "pie", "scatter", "scatterternary", "violin"})


@functools.lru_cache(maxsize=2)
def plotly_gz_b64(full: bool = False) -> str:
    """plotly.js gzip-compressed and base64-encoded, decompressed in the page by the browser's
    ``DecompressionStream``: the 1.5 MB cartesian bundle (0.66 MB as embedded) when it matches the installed plotly
    version and ``full`` is false, else the installed plotly package's full 4.8 MB bundle (1.96 MB embedded)."""
    if not full:
        from importlib.resources import files

        try:
            if plotlyjs_version() == CARTESIAN_VERSION:
                return base64.b64encode(files("gpulens.data").joinpath(CARTESIAN_BUNDLE).read_bytes()).decode()
        except (OSError, ImportError):
            pass
    from plotly.offline import get_plotlyjs

    return base64.b64encode(gzip.compress(get_plotlyjs().encode("utf-8"), 9, mtime=0)).decode("ascii")


def plotlyjs_version() -> str:
    """The plotly.js version of the installed plotly package (``plotly.offline.get_plotlyjs_version()``), read from
    the module that holds it (``plotly/offline/_plotlyjs_version.py``) without importing plotly, whose import reads
    its package metadata (13 ms of every HTML report); plotly's own function where that file is not found.

    Raises:
        ImportError: plotly is not installed.
    """
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("plotly")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        try:
            text = (Path(folder) / "offline" / "_plotlyjs_version.py").read_text(encoding="utf-8")
        except OSError:
            continue
        found = re.findall(r"""^__plotlyjs_version__ = ["']([^"']+)["']$""", text, re.MULTILINE)
        if len(found) == 1:
            return found[0]
    from plotly.offline import get_plotlyjs_version

    return get_plotlyjs_version()


def trace_types(pages: list[Page]) -> set[str]:
    """Plotly trace types of every chart on ``pages``."""
    return {(t.get("type") if isinstance(t, dict) else getattr(t, "type", None)) or "scatter"
            for p in pages for b in p.blocks if isinstance(b, Panel) and b.figure is not None
            for t in (b.figure.get("data") or [] if isinstance(b.figure, dict) else b.figure.data)}


def _render_pages(report: Report, pages: list[Page]) -> str:
    fig_no = 0
    tabs, panels = [], []
    for i, page in enumerate(pages):
        body = []
        for b in page.blocks:
            if isinstance(b, Panel):
                fig_no += 1
                body.append(panel_html(b, f"fig-{fig_no}"))
            else:
                body.append(b)
        sel = "true" if i == 0 else "false"
        tabs.append(f'<button role="tab" id="tab-{page.id}" aria-controls="page-{page.id}" aria-selected="{sel}"'
                    f' tabindex="{0 if i == 0 else -1}">{esc(page.title)}</button>')
        panels.append(f'<section role="tabpanel" id="page-{page.id}" aria-labelledby="tab-{page.id}"'
                      f'{"" if i == 0 else " hidden"}><h2 class="pagetitle">{esc(page.title)}</h2>'
                      f'{"".join(body)}</section>')
    labels = ", ".join(s.label for s in report.sources)
    return "".join([
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>gpulens report — {esc(labels)}</title><style>{CSS}</style>",
        "</head><body>",
        f'<header><h1>gpulens report</h1><p class="sub">{esc(labels)} · gpulens {esc(report.tool_version)} · '
        f"{esc(report.created)}</p>",
        "<noscript><p class='empty'>Charts need JavaScript; the data table beside each chart holds the same "
        "figures.</p></noscript></header>",
        f'<nav role="tablist" aria-label="Report pages">{"".join(tabs)}</nav><main>{"".join(panels)}</main>',
        f'<script type="application/json" id="plot-config">{script_json(PLOT_CONFIG)}</script>',
        f'<script type="application/octet-stream" id="plotly-gz">'
        f'{plotly_gz_b64(not trace_types(pages) <= CARTESIAN_TYPES)}</script>',
        f"<script>{LOADER}{TIMELINE_JS}{JS}</script></body></html>",
    ])


#: Decompresses the embedded plotly.js (gzip + base64) and runs it once the first screen has been painted (the
#: Summary needs no plotly), so the answer shows at once; ``window.gpulensPlotly`` resolves when plotly is ready.
#: ``gpulensInflate(id)`` gives the text of any gzip + base64 ``<script>`` block (the timeline payload too). The bytes
#: are decoded on the page's own thread (``Uint8Array.fromBase64`` or ``atob``) and fed to the ``DecompressionStream``
#: from a stream the page makes: a ``fetch`` of a ``data:`` URL was decoded outside the page, where headless
#: Chromium's virtual time (``--virtual-time-budget``, the way screenshots are taken) did not wait for it, and the
#: roofline stayed "Drawing the chart…" on a loaded machine.
LOADER = """
window.gpulensInflate=function(id){
  var b64=document.getElementById(id).textContent,u8;
  if(Uint8Array.fromBase64){u8=Uint8Array.fromBase64(b64);}
  else{var bin=atob(b64);u8=new Uint8Array(bin.length);for(var i=0;i<bin.length;i++)u8[i]=bin.charCodeAt(i);}
  var src=new ReadableStream({start:function(c){c.enqueue(u8);c.close();}});
  return new Response(src.pipeThrough(new DecompressionStream('gzip'))).text();
};
window.gpulensPlotly=new Promise(function(resolve,reject){
  function load(){performance.mark('gz0');
    window.gpulensInflate('plotly-gz').then(function(text){performance.mark('gz1');
      var s=document.createElement('script');s.textContent=text;document.head.appendChild(s);performance.mark('gz2');
      resolve(window.Plotly);}).catch(reject);}
  requestAnimationFrame(function(){setTimeout(load,0);});
});
"""

CSS = """
body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fff}
header{padding:12px 20px;border-bottom:1px solid #ccc}h1{margin:0;font-size:1.4em}.sub{margin:4px 0 0;color:#555}
nav[role=tablist]{display:flex;flex-wrap:wrap;gap:2px;padding:6px 20px 0;border-bottom:2px solid #0072B2;position:sticky;top:0;
background:#fff;z-index:5}
nav[role=tablist] button{font:inherit;font-size:.95em;border:1px solid #ccc;border-bottom:none;background:#f2f2f2;padding:5px 9px;cursor:pointer;
border-radius:4px 4px 0 0}
nav[role=tablist] button[aria-selected=true]{background:#0072B2;color:#fff;border-color:#0072B2}
nav[role=tablist] button:focus-visible{outline:3px solid #E69F00;outline-offset:1px}
main{padding:10px 20px}.pagetitle{font-size:1.2em;margin:8px 0}h2.source{font-size:1.05em;border-top:1px solid #ddd;
padding-top:8px}
.panel{margin:12px 0 24px}.panel h3{margin:4px 0 8px;font-size:1.05em}.row{display:flex;flex-wrap:wrap;gap:16px;
align-items:flex-start}
figure.fig{flex:1 1 100%;margin:0;min-width:320px;max-width:1100px}.chart{width:100%;min-height:200px}
figcaption,.takeaway{font-size:.95em;color:#222;margin-top:4px}
details.tbl{flex:1 1 100%;max-width:100%}details.tbl summary{cursor:pointer;color:#0072B2}
.tablewrap{overflow:auto;max-height:520px}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;
vertical-align:top;overflow-wrap:break-word;max-width:640px}td.prose{min-width:12em}td.list{min-width:7em}
table.data td:not([class]){white-space:nowrap}
th{background:#f2f2f2;position:sticky;top:0;white-space:nowrap}table.data th{white-space:normal}th.long{white-space:normal;min-width:6em}table.flipped tbody th{position:static;white-space:normal;min-width:12em;max-width:24em;font-weight:normal}table.flipped.one td.num{text-align:left}table.flipped thead td.name{background:#f2f2f2;font-weight:bold;position:sticky;top:0}.tablewrap:has(>table.flipped){max-height:none}table.flipped td.prose{max-width:48em}td.items>span{white-space:normal;min-width:14em}table.sortable th{cursor:pointer}td.num{text-align:right;
font-variant-numeric:tabular-nums;white-space:nowrap}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
table.kv th{position:static;width:14em;white-space:normal}.note{color:#555;font-size:.85em}
section.answer+p.note{margin:-6px 0 10px}
.empty{background:#fff8e1;border-left:4px solid #E69F00;padding:8px 12px}ul.warnings{font-size:.85em}
section.answer{background:#eef5fb;border-left:6px solid #0072B2;padding:8px 14px;margin:6px 0 12px;max-width:1400px}
section.answer .first{margin:4px 0}section.answer details.first{display:inline-block;margin-right:1.6em}
section.answer details.first[open]{display:block}
.verdict{font-size:1.1em;margin:2px 0 6px}.vlabel{display:inline-block;background:#0072B2;color:#fff;
border-radius:3px;padding:1px 8px;margin-right:6px;font-weight:600}
h3.kh{font-size:1em;margin:8px 0 4px}table.akernels{width:100%;table-layout:fixed;background:#fff;font-size:.9em}
table.akernels th{white-space:normal}
table.akernels th:nth-child(1){width:2.6em}table.akernels th:nth-child(2){width:22%}
table.akernels th:nth-child(3){width:10em}table.akernels th:nth-child(4){width:13em}
table.akernels th:nth-child(5){width:7.5em}table.akernels td.name{max-width:none;white-space:normal}table.akernels td:nth-child(3){white-space:normal}
table.akernels td.step{white-space:normal}td.step .step2{display:block;margin-top:4px}td.step .more{color:#555;white-space:nowrap}
.legend{margin:4px 0 0}span.bound[title],th[title]{cursor:help}
@media (max-width:1100px){table.akernels,table.akernels thead,table.akernels tbody{display:block}
table.akernels tr{display:grid;grid-template-columns:2.6em minmax(0,1fr) 10em 12.5em 8em;border-bottom:1px solid #ddd}
table.akernels th{white-space:normal}
table.akernels th,table.akernels td{width:auto!important;max-width:none}
table.akernels th:nth-child(6),table.akernels td:nth-child(6){grid-column:2/-1;border-top:none}}td.tstake{font-weight:600;color:#A04000}
span.bound{display:inline-block;border-radius:3px;padding:0 4px;font-size:.86em;font-weight:600;border:1px solid #888;
white-space:nowrap}
.b-compute{background:#d6e9f5}.b-memory{background:#fbe7c6}.b-latency{background:#f3dcea}.b-launch{background:#fdf3b5}
.b-comm{background:#d3eee5}.b-none{background:#eee;font-weight:400}
ol.top{margin:4px 0 2px;padding-left:1.4em}ol.top li{margin:3px 0}.stake{font-variant-numeric:tabular-nums;
font-weight:600;color:#A04000;display:inline-block;min-width:5.5em}.act{color:#333}
table.findings{width:100%;table-layout:fixed}table.findings td{max-width:none;white-space:normal}
table.findings th:nth-child(1){width:6em}table.findings th:nth-child(2){width:30%}
table.findings th:nth-child(3){width:7em}table.findings th:nth-child(5){width:16%}
tr.child td{color:#444;font-size:.95em}td.name{white-space:normal;min-width:14em;max-width:360px;overflow-wrap:break-word}
a.klink{color:#0072B2}
input.tfilter{margin:2px 0 4px;padding:3px 6px;font:inherit;font-size:.85em;width:16em}
.bars{display:grid;grid-template-columns:12em 1fr 5em;gap:3px 8px;align-items:center;max-width:760px}
.bar{background:#e6e6e6;height:14px;border-radius:2px}.bar>span{display:block;height:100%;background:#0072B2;
border-radius:2px}.nm{color:#777;font-style:italic}
table.kindex{font-size:.9em;margin:4px 0;width:100%;max-width:1100px;table-layout:fixed}table.kindex td.name{max-width:none}table.kindex th{white-space:normal}table.kindex th:nth-child(1){width:3em}table.kindex th:nth-child(3){width:12em}table.kindex th:nth-child(4){width:13em}table.kindex th:nth-child(5){width:7.5em}nav.kindex p{margin:4px 0;color:#555}
section.kpage{border-top:2px solid #0072B2;margin-top:10px}.kparts{display:grid;gap:6px 24px;
grid-template-columns:repeat(auto-fit,minmax(440px,1fr))}.kparts>*{min-width:0}section.kpage table.kv{max-width:100%}section.kpage table.kv td{overflow-wrap:anywhere}.kpart h4{margin:10px 0 4px}
.chart.static{min-height:0}.chart:not(.static):not([data-rendered])::before{content:"Drawing the chart…";display:block;padding:8px;color:#666;font-style:italic}.chart:not(.static)[data-failed]::before{content:"This chart could not be drawn: the data table beside it holds its figures.";color:#a33}.kvgrid{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}.kvgrid table.kv td{max-width:520px}
.tlbar{margin:4px 0}.tlstatus{color:#333;font-size:.9em}
.hbars{display:grid;grid-template-columns:max-content minmax(140px,420px) minmax(0,max-content);gap:6px 8px;align-items:center;
font-size:.85em;max-width:100%}.hl{text-align:right}.hb{background:#f2f2f2;height:20px;display:block}
.hb>span{display:block;height:100%;min-width:1px}.ht{font-variant-numeric:tabular-nums}
.haxis{color:#555;font-size:.8em;margin:4px 0 0}
details.ev{font-size:.9em;color:#444;margin-top:3px}details.ev summary{cursor:pointer;color:#0072B2}
td.items>span{display:block;white-space:nowrap}td.items .more{color:#555;font-size:.9em}
code.fullname{display:block;white-space:pre-wrap;word-break:break-all;font-size:.8em;background:#f7f7f7;padding:4px}
"""

JS = """
(function(){
  var cfg=JSON.parse(document.getElementById('plot-config').textContent);
  var tabs=Array.prototype.slice.call(document.querySelectorAll('nav [role=tab]'));
  function draw(panel){
    panel.querySelectorAll('.chart').forEach(function(div){
      if(div.getAttribute('data-drawn'))return;
      div.setAttribute('data-drawn','1');
      window.gpulensPlotly.then(function(P){
        var spec=JSON.parse(document.getElementById(div.getAttribute('data-spec')).textContent);
        var drawn=div.getAttribute('data-timeline')?window.gpulensTimeline(div,P,cfg):P.newPlot(div,spec.data,spec.layout,cfg);
        return drawn.then(function(){
          if(!div.getAttribute('data-timeline')){fitLegend(div,P,spec.layout.height);
            div.on('plotly_afterplot',function(){fitLegend(div,P,spec.layout.height);});}
          div.setAttribute('data-rendered','1');ready();
          div.on('plotly_click',function(e){var c=e.points&&e.points[0]&&e.points[0].customdata;
            if(typeof c==='string'&&c.indexOf('kernel-')===0)location.hash=c;});
        });
      }).catch(function(e){div.setAttribute('data-failed','1');console.error('gpulens: chart '+div.id+' failed: '+e);});
    });
  }
  // a horizontal legend that plotly wrapped onto several rows at this width takes its room from the plot: the
  // figure (laid out for one legend row, its height 'base') grows by the further rows as drawn, so the plot keeps
  // its height at any window width (redone after each redraw: a resize rewraps the legend)
  function fitLegend(div,P,base){
    var lg=div.querySelector('g.legend'),w=String(div.clientWidth);if(!lg||!base||div.getAttribute('data-legend-w')===w)return;
    var ys=[];Array.prototype.forEach.call(lg.querySelectorAll('g.traces'),function(g){
      var m=/translate\\(\\s*[-\\d.e]+[ ,]+([-\\d.e]+)/.exec(g.getAttribute('transform')||'');
      if(m)ys.push(parseFloat(m[1]));});
    if(!ys.length)return;
    // the rows' offsets, not the legend's box: plotly scrolls a legend taller than its room, so the box grows
    // with the figure (and a fit on it never settles)
    var rows={};ys.forEach(function(y){rows[Math.round(y)]=1;});
    var want=Math.round(base+Math.max.apply(null,ys)-Math.min.apply(null,ys));
    div.setAttribute('data-legend-w',w);div.setAttribute('data-legend-rows',Object.keys(rows).length);
    if(Math.abs((div.layout.height||0)-want)>2)P.relayout(div,{height:want});
  }
  function show(tab,focus){
    tabs.forEach(function(t){
      var on=(t===tab);
      t.setAttribute('aria-selected',on?'true':'false');t.tabIndex=on?0:-1;
      document.getElementById(t.getAttribute('aria-controls')).hidden=!on;
    });
    if(focus)tab.focus();
    var pid=tab.getAttribute('aria-controls'),h='#'+pid.slice(5);
    if(!kernelHash&&location.hash!==h)history.replaceState(null,'',h);
    draw(document.getElementById(pid));
  }
  var kernelHash=false;
  function route(){
    var h=location.hash;
    if(h.indexOf('#kernel-')===0&&document.getElementById('kp-'+h.slice(8))){
      kernelHash=true;
      document.querySelectorAll('section.kpage').forEach(function(k){k.hidden=(k.id!=='kp-'+h.slice(8));});
      var kt=document.getElementById('tab-kernel');if(kt)show(kt,false);
      kernelHash=false;window.scrollTo(0,0);return true;
    }
    var t=tabs.filter(function(t){var c=t.getAttribute('aria-controls');return '#'+c===h||'#'+c.slice(5)===h;})[0];
    if(t)show(t,false);
    return !!t;
  }
  window.addEventListener('hashchange',route);
  document.querySelectorAll('input.tfilter').forEach(function(inp){
    var wrap=inp.nextElementSibling,table=wrap&&wrap.querySelector('table');
    if(!table)return;
    inp.addEventListener('input',function(){
      var q=inp.value.toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows,function(r){
        r.hidden=q&&r.textContent.toLowerCase().indexOf(q)<0;});
    });
  });
  tabs.forEach(function(t,i){
    t.addEventListener('click',function(){show(t,false);});
    t.addEventListener('keydown',function(e){
      var j={ArrowRight:i+1,ArrowLeft:i-1,Home:0,End:tabs.length-1}[e.key];
      if(j===undefined)return;e.preventDefault();show(tabs[(j+tabs.length)%tabs.length],true);
    });
  });
  function sortBy(th){
    var table=th.closest('table'),tbody=table.tBodies[0],idx=Array.prototype.indexOf.call(th.parentNode.children,th);
    var asc=th.getAttribute('aria-sort')!=='ascending';
    th.parentNode.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
    th.setAttribute('aria-sort',asc?'ascending':'descending');
    var rows=Array.prototype.slice.call(tbody.rows);
    rows.sort(function(a,b){
      var x=a.cells[idx],y=b.cells[idx],vx=x.getAttribute('data-v'),vy=y.getAttribute('data-v'),r;
      if(vx!==null&&vy!==null){r=parseFloat(vx)-parseFloat(vy);}else{r=x.textContent.localeCompare(y.textContent);}
      return asc?r:-r;
    });
    rows.forEach(function(r){tbody.appendChild(r);});
  }
  document.querySelectorAll('table.sortable th').forEach(function(th){
    th.addEventListener('click',function(){sortBy(th);});
    th.addEventListener('keydown',function(e){if(e.key==='Enter'){sortBy(th);}});
  });
  // marks 'gpulens-first-screen' once every chart of the tab shown first is drawn (benchmarks/report_load.py)
  var marked=false;
  function ready(){if(marked)return;var p=document.querySelector('section[role=tabpanel]:not([hidden])');
    if(!p)return;var c=p.querySelectorAll('.chart');
    for(var i=0;i<c.length;i++){if(!c[i].getAttribute('data-rendered'))return;}
    marked=true;performance.mark('gpulens-first-screen');}
  if(!route())show(tabs[0],false);
  ready();
})();
"""
