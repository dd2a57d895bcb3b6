"""The HTML report's Timeline tab: CPU thread and GPU stream lanes, launch → kernel flows, zoomable detail.

Draws the ``stream_timeline`` analyzer's table as it is (no metric is computed here). The table holds several
levels of detail (see :mod:`gpulens.analyzers.stream_timeline`); all of them travel in the page as one compact,
gzip-compressed JSON payload (``<script type="application/octet-stream">``, decompressed by the browser's
``DecompressionStream``). The page script (:data:`TIMELINE_JS`) draws, for the visible time range, the finest level
embedded for every window in view, at most :data:`DRAW_CAP` bars, and redraws on zoom (plotly ``relayout``). A bar
merging several events spans the first one's start to the last one's end and is drawn as thick as its busy share of
that span (``busy_ns`` ÷ span; 15 % of a lane at least), so a bin holding a few short memsets is a thin line, not a
solid block that reads as a busy stream.
Hovering a kernel draws an arrow from the runtime call that launched it (on its CPU thread lane) and names the
launching op; hovering a launch call draws the same arrow. Two buttons export what the page holds as Chrome-trace
JSON: a download (offline) and "open in ui.perfetto.dev" (the only action of the page that uses the network).
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
from concurrent.futures import Future
from itertools import repeat
from typing import Any

import numpy as np
import pandas as pd

from gpulens.reports._format import fmt_ns, fmt_unit, time_scale
from gpulens.reports._html_parts import KIND_COLOURS, KIND_LABELS, OKABE_ITO, Panel, empty_html, table_html, wrap_name
from gpulens.reports._names import short_names
from gpulens.units import plural

#: Bars drawn at most for one view (the finest embedded level that stays under it is chosen).
DRAW_CAP = 4000
#: Colour of each host event kind on CPU thread lanes (GPU kinds: KIND_COLOURS).
HOST_COLOURS = {"cpu_op": OKABE_ITO[4], "runtime": OKABE_ITO[5], "sync": "#555555"}


def lane_label(rank: Any, device: Any, stream: Any, thread: Any) -> str:
    """``rank 0 · GPU 0 · stream 7``, ``rank 0 · GPU 0 · stream not recorded``, ``rank 0 · CPU thread 1234`` or
    ``rank 0 · host (thread not recorded)``."""
    r = f"rank {fmt_unit(rank, 'id')}"
    if int(device) < 0:
        return f"{r} · CPU thread {fmt_unit(thread, 'id')}" if int(thread) >= 0 else f"{r} · host (thread not recorded)"
    s = f"stream {fmt_unit(stream, 'id')}" if int(stream) >= 0 else "stream not recorded"
    return f"{r} · GPU {fmt_unit(device, 'id')} · {s}"


def _payload(t: pd.DataFrame, sm: dict[str, Any], max_segments: int) -> tuple[dict[str, Any], int]:
    """The compact columnar payload the page script draws, finest levels dropped to fit ``max_segments``."""
    levels, counts = np.unique(t["level"].to_numpy(), return_counts=True)
    rows_of = dict(zip((int(x) for x in levels.tolist()), counts.tolist()))  # level → its segments
    levels = sorted(rows_of)
    keep = levels[:1]
    for lv in levels[1:]:
        if sum(rows_of[k] for k in keep) + rows_of[lv] > max_segments:
            break
        keep.append(lv)
    if len(keep) < len(levels):  # every level kept: the table as it is
        t = t[t["level"].isin(keep)]
    if len(t) > max_segments:  # level 0 alone over budget: every lane its equal share, longest segments first
        lane = t.groupby(["rank", "device_id", "stream_id", "thread_id"], sort=False).ngroup()
        sizes = lane.value_counts().to_numpy()
        quota = 1
        while quota < sizes.max() and int(np.minimum(sizes, quota + 1).sum()) <= max_segments:
            quota += 1
        order = t.assign(_l=lane).sort_values("busy_ns", ascending=False, kind="stable").groupby("_l").cumcount()
        t = t[(order < quota).reindex(t.index).to_numpy()]
    texts: dict[str, tuple[np.ndarray, bool]] = {}

    def text(col: str) -> np.ndarray:  # the column as ``astype(str)`` reads it, as an object array (made once)
        if col not in texts:
            c = t[col]
            if isinstance(c.dtype, pd.StringDtype):  # already str: astype(str) would rebuild the same array
                texts[col] = c.to_numpy(dtype=object), bool(c.isna().any())
            elif c.dtype == object and set(map(type, c.to_numpy(dtype=object).tolist())) <= {str}:
                texts[col] = c.to_numpy(dtype=object), False
            else:
                texts[col] = c.astype(str).to_numpy(dtype=object), False
        return texts[col][0]

    keys = list(zip(t["rank"].tolist(), t["device_id"].tolist(), t["stream_id"].tolist(), t["thread_id"].tolist()))
    lanes = list(dict.fromkeys(sorted(set(keys), key=lambda k: (k[0], k[1] >= 0, k[1], k[2], k[3]))))
    lane_ix = {k: i for i, k in enumerate(lanes)}
    by_thread = {(r, th): lane_ix[(r, d, s, th)] for (r, d, s, th) in lanes if d < 0}
    names = list(dict.fromkeys(text("name").tolist()))
    known = set(names)
    extra = [n for n in dict.fromkeys(text("launch_name").tolist() + text("op_name").tolist())
             if n and n != "nan" and n not in known]
    names += extra
    present = set(text("kind").tolist())  # drawing order: long host ops under runtime calls, GPU kinds last
    kinds = [k for k in KIND_LABELS if k in present] + sorted(present - set(KIND_LABELS))
    lo = t["launch_offset_ns"].to_numpy("float64")
    has = ~np.isnan(lo)
    ll = np.where(has, list(map(by_thread.get, zip(t["rank"].tolist(), t["launch_thread"].tolist()),
                                repeat(-1, len(t)))), -1).tolist() if len(t) else []

    def ix(col: str) -> list[int]:  # position in `names`; -1 for none ("" or "nan")
        vals = text(col)
        out = np.asarray(positions(names, vals, texts[col][1]), dtype=np.int64)
        out[(vals == "") | (vals == "nan")] = -1
        return out.tolist()

    span = drawn_extent(sm)
    payload = {
        "span": span, "scale": time_scale([span])[0], "bin0": int(sm.get("bin_ns") or 0),
        "bins": int(sm.get("bins") or 0), "branch": int(sm.get("branch", 8)),
        "levels": keep, "exact": not sm.get("decimated"), "cap": DRAW_CAP,
        "lanes": [lane_label(*k) for k in lanes], "gpuLane": [bool(k[1] >= 0) for k in lanes],
        "names": [wrap_name(n) for n in names], "short": short_names(names),
        "kinds": kinds, "kindLabels": [KIND_LABELS.get(k, k) for k in kinds],
        "colours": [KIND_COLOURS.get(k) or HOST_COLOURS.get(k) or "#999999" for k in kinds],
        "level": t["level"].astype(int).tolist(), "window": t["window"].astype(int).tolist(),
        "lane": list(map(lane_ix.__getitem__, keys)), "off": t["offset_ns"].astype("int64").tolist(),
        # never past the drawn extent: a segment holding events of two clock domains spans no jump when drawn
        "dur": np.minimum(_durations(t), np.maximum(span - t["offset_ns"].to_numpy("int64"), 0)).tolist(),
        "busy": t["busy_ns"].astype("int64").tolist(), "events": t["events"].astype("int64").tolist(),
        "kind": positions(kinds, text("kind"), texts["kind"][1]),
        "name": ix("name"),
        "launchOff": np.where(has, np.nan_to_num(lo, nan=-1), -1).astype("int64").tolist(), "launchLane": ll,
        "launchName": ix("launch_name"), "op": ix("op_name"),
    }
    return payload, len(t)


def _durations(t: pd.DataFrame) -> np.ndarray:
    """``(end_ns − start_ns).clip(lower=0)`` of the segments as int64 [ns]: in numpy when both columns are int64
    (the analyzer's table; pandas' ``clip`` cost more than the subtraction), else through pandas as before."""
    if t["end_ns"].dtype == np.int64 and t["start_ns"].dtype == np.int64:
        return np.maximum(t["end_ns"].to_numpy() - t["start_ns"].to_numpy(), 0)
    return (t["end_ns"] - t["start_ns"]).clip(lower=0).to_numpy("int64")


def positions(items: list[Any], values: np.ndarray, missing: bool = True) -> list[int]:
    """``pd.Index(items, dtype=object).get_indexer(values).tolist()`` (the position of each value in ``items``, −1
    when absent) by dict look-ups: a payload's few distinct names (18 at 100k kernels) looked up 19,018 times took
    pandas' object hash table 5 ms a column, a dict 0.4 ms. Values pandas matches by its own rules (NaN, None,
    ``pd.NA``: ``missing`` says whether ``values`` may hold any) or ``items`` that repeat (pandas then refuses) go
    to pandas."""
    index = {v: i for i, v in enumerate(items)}
    if len(index) != len(items) or (missing and bool(pd.isna(values).any())):
        return pd.Index(items, dtype=object).get_indexer(values).tolist()
    return list(map(index.get, values.tolist(), repeat(-1, len(values))))


#: Payload keys whose values are lists of Python ints (:func:`_payload`): encoded by msgspec (the same text as
#: ``json.dumps`` gives a list of ints), every other value by ``json.dumps`` (its ASCII escapes of text).
_INT_LISTS = frozenset({"level", "window", "lane", "off", "dur", "busy", "events", "kind", "name", "launchOff",
                        "launchLane", "launchName", "op"})


def payload_json(payload: dict[str, Any]) -> bytes:
    """``json.dumps(payload, separators=(",", ":"), allow_nan=False)`` as UTF-8 bytes, byte for byte, with the long
    integer columns encoded by msgspec (C): 19,018 segments × 13 columns took the standard library's encoder 18 ms
    of the payload's 20 ms."""
    import msgspec

    def one(key: str, value: Any) -> str:
        if key in _INT_LISTS and isinstance(value, list) and set(map(type, value)) <= {int}:
            try:
                return msgspec.json.encode(value).decode("ascii")
            except (TypeError, OverflowError, ValueError):  # past 64 bits
                pass
        return json.dumps(value, separators=(",", ":"), allow_nan=False)

    parts = [json.dumps(str(k)) + ":" + one(k, v) for k, v in payload.items()]
    return ("{" + ",".join(parts) + "}").encode("utf-8", "surrogatepass")


def drawn_extent(sm: dict[str, Any]) -> int:
    """The timeline's drawn extent [ns]: first → last event, clock jumps left out (``stream_timeline``'s
    ``extent_ns``; an older result without it: ``end_ns − start_ns``)."""
    ext = sm.get("extent_ns")
    return int(ext) if ext is not None else int(sm["end_ns"] - sm["start_ns"])


def timeline_data_b64(payload: dict[str, Any]) -> str:
    """The payload as gzip-compressed, base64-encoded JSON (what the page script decompresses)."""
    return _gzip_b64(payload_json(payload))


#: zlib level of the payload: 1 compresses the 1.0 MB payload of a 100k-kernel trace in 6 ms of CPU (level 6: 42 ms,
#: level 9: 93 ms) into 12 % more bytes (275 KB against 244 KB; the page stays far under its size budget): the
#: payload's text after the browser decompresses it is the same whatever the level.
GZIP_LEVEL = 1


def _gzip_b64(raw: bytes) -> str:
    return base64.b64encode(gzip.compress(raw, GZIP_LEVEL, mtime=0)).decode("ascii")


def timeline_data_later(payload: dict[str, Any]) -> Future:
    """:func:`timeline_data_b64` with the compression (a few ms at 100k kernels, in zlib, which lets other Python
    threads run) in a thread of its own while the report's other tabs are built: a future of the same
    text (:func:`~gpulens.reports._html_parts.panel_html` waits for it)."""
    raw = payload_json(payload)
    done: Future = Future()

    def run() -> None:
        try:
            done.set_result(_gzip_b64(raw))
        except BaseException as exc:  # noqa: BLE001 — raised again where the text is used
            done.set_exception(exc)

    threading.Thread(target=run, name="gpulens-timeline-gzip", daemon=True).start()
    return done


def _window_note(s: Any, shown_ns: int) -> str:
    """How the lanes' extent relates to the one profiled window of every report (``breakdown``'s ``window_ns``:
    first → last recorded event, host included): "" when they print the same, else what each one is."""
    bd = s.results.get("breakdown")
    win = (bd.summary.get("window_ns") or 0) if bd is not None and not bd.skipped else 0
    if not win or fmt_ns(win) == fmt_ns(shown_ns):  # any difference shown is named (473.77 ms beside 473.83 ms)
        return ""
    return (f" (first to last event drawn — GPU work, runtime calls, CPU ops; the profiled window of every report, "
            f"first to last recorded event, Python functions and annotations included, is {fmt_ns(win)})")


def _overrun_note(s: Any) -> str:
    """How many GPU events overran the next event on their stream (``hotspots``' ``overrun_events`` and
    ``overrun_ns``): the lanes draw them clipped at that start, as every figure of the report counts them; "" when
    none did."""
    hs = s.results.get("hotspots")
    n = int((hs.summary.get("overrun_events") or 0) if hs is not None else 0)
    if not n:
        return ""
    return (f"; {plural(n, 'GPU event(s)')} recorded past the start of the next one on {'its' if n == 1 else 'their'} "
            f"stream ({fmt_ns(hs.summary.get('overrun_ns'))} in all) {'is' if n == 1 else 'are'} drawn clipped "
            "there, as every figure of this report counts them (the Hot kernels tab lists them)")


#: The columns of the level-0 table the Timeline tab shows, and those its lane and kind labels are made from.
_LEVEL0_COLUMNS = ("rank", "device_id", "stream_id", "thread_id", "offset_ns", "busy_ns", "events", "kind", "name")


def _level0(t: pd.DataFrame) -> pd.DataFrame:
    """The level-0 segments of the timeline table (every event, or the whole run's bins), only the columns the tab
    shows (:data:`_LEVEL0_COLUMNS`): a slice when they come first, as the analyzer writes them (a boolean mask
    copied all 17 columns of the 19,018 segments of a 100k-kernel run to show 200 rows of 6)."""
    cols = [c for c in _LEVEL0_COLUMNS if c in t]
    at = np.flatnonzero(t["level"].to_numpy() == 0)
    rows = t.iloc[:len(at)] if len(at) and int(at[-1]) == len(at) - 1 else t.iloc[at]
    return rows[cols]


def timeline_page(s: Any, max_rows: int, max_segments: int) -> list[Any]:
    """The Timeline tab: one zoomable chart of every CPU thread and GPU stream lane, and the level-0 table."""
    st = s.results.get("stream_timeline")
    if st is None or st.skipped or not len(st.table):
        return [empty_html("Stream timeline", st.skipped_reason if st is not None else "analysis not available")]
    t, sm = st.table, st.summary
    if "level" not in t:  # a table from before levels and host lanes (older cached results)
        t = t.assign(level=0, window=0, thread_id=-1, launch_offset_ns=np.nan, launch_thread=-1, launch_name="",
                     op_name="")
    payload, drawn = _payload(t, sm, max_segments)
    fig = {"data": [], "layout": {
        "height": 170 + 24 * len(payload["lanes"]), "margin": {"l": 10, "r": 10, "t": 50, "b": 40},
        "hovermode": "closest", "barmode": "overlay", "legend": {"orientation": "h", "x": 0, "y": 1.02,
                                                               "yanchor": "bottom"},
        "xaxis": {"title": {"text": f"time since the first event [{time_scale([payload['span']])[1]}]"},
                  "automargin": True},
        "yaxis": {"autorange": "reversed", "type": "category", "categoryorder": "array",
                  "categoryarray": payload["lanes"], "automargin": True}}}
    level0 = _level0(t)
    n_threads = sum(1 for g in payload["gpuLane"] if not g)
    how = ("each event drawn on its own" if not sm.get("decimated") else
           f"the whole run in bins of {fmt_ns(sm.get('bin_ns'))} per lane, "
           + (f"finer levels for {plural(len(payload['levels']) - 1, 'zoom step(s)')} where they fit"
              if len(payload["levels"]) > 1 else "no finer level within the report's size budget")
           + "; a bar merging several events spans "
           "the first one's start to the last one's end and is drawn as thick as its busy share of that span (a "
           "full-height bar was busy throughout)")
    cut = f"; {drawn} of {len(t)} segments embedded" if drawn < len(t) else ""
    shown = drawn_extent(sm)
    take = (f"{sm['event_count']:,} GPU events on {plural(sm.get('track_count', 0), 'stream lane(s)')} and "
            f"{sm.get('host_event_count', 0):,} host events on {plural(n_threads, 'CPU thread lane(s)')} over "
            f"{fmt_ns(shown)}{_window_note(s, shown)}: {how}{cut}"
            + (f"; a clock jump of {fmt_ns(sm['clock_jump_ns'])} between two time bases is left out (each clock's "
               "events are drawn right after the earlier clock's)" if sm.get("clock_jump_ns") else "")
            + _overrun_note(s)
            + (". Zoom (drag) to see single kernels; hover a kernel for the call that launched it."
               if not sm.get("decimated") or len(payload["levels"]) > 1 else
               ". No finer level is embedded at this size: see single kernels in Perfetto (gpulens analyze … "
               "--perfetto run.json); hover a bar for what it merges."))
    buttons = ('<p class="tlbar"><button type="button" class="tl-export">Download for Perfetto (Chrome-trace JSON)'
               '</button> <button type="button" class="tl-perfetto" title="opens ui.perfetto.dev in a new tab and '
               'sends it the events (needs the network)">Open in ui.perfetto.dev</button> '
               '<span class="tlstatus" aria-live="polite"></span></p>'
               '<p class="note">The export holds what this page embeds; for every event of the trace run '
               '<code>gpulens analyze … --perfetto run.json</code>.</p>')
    keys = list(zip(level0["rank"].tolist(), level0["device_id"].tolist(), level0["stream_id"].tolist(),
                    level0["thread_id"].tolist()))
    labels = {k: lane_label(*k) for k in dict.fromkeys(keys)}  # a few lanes, many segments: each label once
    level0 = level0.assign(
        lane=[labels[k] for k in keys],
        kind=[KIND_LABELS.get(str(k), str(k)) for k in level0["kind"]])
    cols = ["lane", "offset_ns", "busy_ns", "events", "kind", "name"]
    docs = {**st.columns, "lane": "GPU stream or CPU thread [text]"}
    return [Panel("Stream timeline", take, fig,
                  table_html(level0, cols, max_rows, headers={"offset_ns": "start (from the timeline's first event)"},
                             docs=docs),
                  note=buttons, data=timeline_data_later(payload))]


#: Page script of the timeline chart: ``gpulensTimeline(div, P)`` draws it once plotly is loaded (``P``).
TIMELINE_JS = r"""
window.gpulensTimeline=function(div,P,cfg){
  return window.gpulensInflate(div.getAttribute('data-timeline')).then(function(txt){
    var D=JSON.parse(txt),S=D.scale||1e6,spec=JSON.parse(document.getElementById(div.getAttribute('data-spec')).textContent);
    var n=D.off.length,status=div.closest('section.panel').querySelector('.tlstatus'),cur=null,busy=false;
    function fmt(ns){var a=Math.abs(ns);if(a>=1e9)return (ns/1e9).toFixed(2)+' s';if(a>=1e6)return (ns/1e6).toFixed(2)+' ms';
      if(a>=1e3)return (ns/1e3).toFixed(2)+' \u00b5s';return ns.toFixed(0)+' ns';}
    var refined={};D.levels.forEach(function(l){refined[l]={};});
    for(var i=0;i<n;i++){if(D.level[i]>0)refined[D.level[i]][Math.floor(D.window[i]/D.branch)]=1;}
    var launchOf={};for(var i=0;i<n;i++){if(D.launchOff[i]>=0&&D.launchLane[i]>=0)launchOf[D.launchLane[i]+':'+D.launchOff[i]]=i;}
    function winW(l){return D.bin0*D.bins/Math.pow(D.branch,l);}
    // where single events are embedded (windows of a finer level holding only one-event segments), merged and shaded
    // yellow (Okabe-Ito #F0E442, no kind's colour: green shading read as memsets, #009E73)
    var exact=[];if(!D.exact){var ok={};for(var i=0;i<n;i++){var l=D.level[i];if(l===0)continue;var k=l+':'+D.window[i];
      ok[k]=(ok[k]===undefined?true:ok[k])&&D.events[i]===1;}
      Object.keys(ok).forEach(function(k){if(!ok[k])return;var p=k.split(':'),w=winW(+p[0]);exact.push([+p[1]*w,(+p[1]+1)*w]);});
      exact.sort(function(a,b){return a[0]-b[0];});var m=[];exact.forEach(function(r){var q=m[m.length-1];
        if(q&&r[0]<=q[1]+1)q[1]=Math.max(q[1],r[1]);else m.push([r[0],r[1]]);});exact=m.slice(0,200);}
    var base=exact.map(function(r){return {type:'rect',xref:'x',yref:'paper',x0:r[0]/S,x1:r[1]/S,y0:0,y1:1,
      fillcolor:'rgba(240,228,66,0.22)',line:{width:0},layer:'below'};});
    var exactShare=exact.reduce(function(s,r){return s+r[1]-r[0];},0)/D.span;
    function covered(l,a,b){if(l===0)return true;var w=winW(l),w0=Math.max(0,Math.floor(a/w)),w1=Math.floor(Math.min(b,D.span)/w);
      if(w1-w0>4096)return false;for(var k=w0;k<=w1;k++){if(!refined[l][Math.floor(k/D.branch)])return false;}return true;}
    function pick(a,b){
      for(var j=D.levels.length-1;j>=0;j--){var l=D.levels[j];if(!covered(l,a,b))continue;
        var idx=[];for(var i=0;i<n;i++){if(D.level[i]===l&&D.off[i]<=b&&D.off[i]+D.dur[i]>=a)idx.push(i);}
        if(idx.length<=D.cap||j===0)return {level:l,idx:idx};}
    }
    function hover(i){var t=D.names[D.name[i]]+'<br>'+D.kindLabels[D.kind[i]]+' · '+D.lanes[D.lane[i]]+'<br>';
      t+=D.events[i]>1?D.events[i].toLocaleString('en')+' events merged, busy '+fmt(D.busy[i])+' in '+fmt(D.dur[i]):
        'start +'+fmt(D.off[i])+', duration '+fmt(D.dur[i]);
      if(D.launchOff[i]>=0)t+='<br>launched by '+(D.launchName[i]>=0?D.names[D.launchName[i]]:'a runtime call')+
        (D.launchLane[i]>=0?' on '+D.lanes[D.launchLane[i]]:'')+', '+fmt(D.off[i]-D.launchOff[i])+' before it started';
      if(D.op[i]>=0)t+='<br>from '+D.names[D.op[i]];
      return t;}
    // a bar merging several events spans first start -> last end: drawn as thick as its busy share of that span
    // (ink ~ busy time; 15 % of a lane at least, so it stays visible), a single event full height
    function thick(i){return D.events[i]>1?0.8*Math.max(Math.min(D.busy[i]/Math.max(D.dur[i],1),1),0.15):0.8;}
    function traces(sel){
      var out=[{type:'scatter',mode:'markers',x:D.lanes.map(function(){return 0;}),y:D.lanes,marker:{opacity:0},
                hoverinfo:'skip',showlegend:false}];
      D.kinds.forEach(function(k,ki){
        var ids=sel.idx.filter(function(i){return D.kind[i]===ki;});
        ids.sort(function(x,y){return D.dur[y]-D.dur[x];});
        if(!ids.length)return;
        out.push({type:'bar',orientation:'h',name:D.kindLabels[ki],marker:{color:D.colours[ki],line:{width:0}},
          y:ids.map(function(i){return D.lanes[D.lane[i]];}),base:ids.map(function(i){return D.off[i]/S;}),
          x:ids.map(function(i){return Math.max(D.dur[i],1)/S;}),width:ids.map(thick),customdata:ids,
          hovertext:ids.map(hover),hoverinfo:'text'});
      });
      return out;}
    function say(sel){if(!status)return;var l=sel.level,single=sel.idx.every(function(i){return D.events[i]===1;});
      status.textContent='Showing '+sel.idx.length.toLocaleString('en')+(sel.idx.length===1?' bar':' bars')+(single?', one per event':
        ', some merging several events, each as thick as its busy share of its span')+(l>0?' (detail level '+l+')':'')+'.'+(exact.length?' Single events are '+
        'embedded for '+(100*exactShare).toFixed(1)+' % of the run (shaded yellow): zoom there to see each kernel.':'');}
    function draw(a,b,first){
      var sel=pick(a,b);cur=sel;var lay=spec.layout;
      if(!first){lay=div.layout;}lay.shapes=base.slice();
      lay.xaxis=lay.xaxis||{};lay.xaxis.range=[a/S,b/S];lay.xaxis.autorange=false;
      say(sel);busy=true;
      return P.react(div,traces(sel),lay,cfg).then(function(){busy=false;});
    }
    function flow(i){
      if(i===undefined||D.launchOff[i]<0||D.launchLane[i]<0)return;
      var x0=D.launchOff[i]/S,y0=D.launchLane[i],x1=D.off[i]/S,y1=D.lane[i];
      P.relayout(div,{shapes:base.concat([{type:'line',x0:x0,y0:y0,x1:x1,y1:y1,xref:'x',yref:'y',line:{color:'#000',width:2,dash:'dot'}},
        {type:'circle',xsizemode:'pixel',ysizemode:'pixel',xanchor:x0,yanchor:y0,
         x0:-5,x1:5,y0:-5,y1:5,xref:'x',yref:'y',line:{color:'#000',width:2}}])});
    }
    return draw(0,D.span,true).then(function(){
      div.on('plotly_relayout',function(e){
        if(busy||!e)return;
        if(e['xaxis.autorange']){draw(0,D.span,false);return;}
        var a=e['xaxis.range[0]'],b=e['xaxis.range[1]'];
        if(a===undefined&&e['xaxis.range'])a=e['xaxis.range'][0],b=e['xaxis.range'][1];
        if(a!==undefined)draw(Math.max(0,a*S),Math.min(D.span,b*S),false);
      });
      div.on('plotly_hover',function(e){var p=e.points&&e.points[0];if(!p||p.customdata===undefined)return;
        var i=p.customdata;if(D.launchOff[i]>=0){flow(i);return;}
        var k=launchOf[D.lane[i]+':'+D.off[i]];if(k!==undefined)flow(k);});
      div.on('plotly_unhover',function(){if((div.layout.shapes||[]).length>base.length)P.relayout(div,{shapes:base.slice()});});
      var panel=div.closest('section.panel');
      function chrome(){
        var ev=[],seen={};D.lanes.forEach(function(l,li){ev.push({ph:'M',name:'thread_name',pid:0,tid:li,args:{name:l}});});
        for(var i=0;i<n;i++){var l=D.level[i],fin=D.levels.indexOf(l+1)>=0&&refined[l+1][D.window[i]];
          if(fin)continue;
          ev.push({ph:'X',name:D.short[D.name[i]],cat:D.kinds[D.kind[i]],pid:0,tid:D.lane[i],ts:D.off[i]/1e3,dur:D.dur[i]/1e3,
                   args:{events:D.events[i],busy_us:D.busy[i]/1e3}});}
        return JSON.stringify({traceEvents:ev,displayTimeUnit:'ns'});}
      div.gpulensChromeTrace=chrome;
      var ex=panel.querySelector('.tl-export');
      if(ex)ex.addEventListener('click',function(){
        var a=document.createElement('a');a.href=URL.createObjectURL(new Blob([chrome()],{type:'application/json'}));
        a.download='gpulens-timeline.json';document.body.appendChild(a);a.click();a.remove();});
      var op=panel.querySelector('.tl-perfetto');
      if(op)op.addEventListener('click',function(){
        var origin='https://ui.perfetto.dev',w=window.open(origin+'/#!/'),buf=new TextEncoder().encode(chrome()).buffer;
        var timer=setInterval(function(){w.postMessage('PING',origin);},100);
        window.addEventListener('message',function m(e){if(e.origin!==origin||e.data!=='PONG')return;
          clearInterval(timer);window.removeEventListener('message',m);
          w.postMessage({perfetto:{buffer:buf,title:'gpulens timeline',fileName:'gpulens-timeline.json'}},origin);});
      });
    });
  });
};
"""
