/* fssim-farm report and compare: draws the page's plots and tables from the
 * JSON in #fssim-data with plotly.js (inlined in the page), and redraws them
 * when the metric, plane or scale is switched.  Nothing is fetched. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("fssim-data").textContent);
  var sel = { algo: D.sel.algo, plane: D.sel.plane, scale: D.sel.scale };
  /* a link may choose: REPORT.html#algo=psnr&plane=Y&scale=dB */
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var p = kv.split("="), v = decodeURIComponent(p[1] || "");
    if (p[0] === "algo" && D.algos.indexOf(v) >= 0) sel.algo = v;
    if (p[0] === "plane" && D.planes.indexOf(v) >= 0) sel.plane = v;
    if (p[0] === "scale" && (v === "dB" || v === "value")) sel.scale = v;
  });
  var CONFIG = { displaylogo: false, responsive: true };
  /* a time axis: plotly reads a number as a year, so times (ms) become
   * "1970-01-01 hh:mm:ss.sss" */
  function ms2d(v) {
    return v === null ? null : new Date(v).toISOString().replace("T", " ").replace("Z", "");
  }
  var TIME_AXIS = { type: "date", gridcolor: "#eee", tickformatstops: [
    { dtickrange: [null, 1000], value: "%M:%S.%L" },
    { dtickrange: [1000, null], value: "%H:%M:%S" }] };
  function timeAxis(extra) {
    var a = JSON.parse(JSON.stringify(TIME_AXIS));
    for (var k in extra) a[k] = extra[k];
    return a;
  }
  if (D.rungs) D.rungs.forEach(function (r) {
    r.xd = r.x.map(ms2d);
    r.events.forEach(function (ev) { ev[0] = ms2d(ev[0]); ev[1] = ms2d(ev[1]); });
  });
  if (D.scenes) { D.scenes.xd = D.scenes.x.map(ms2d); D.scenes.end = ms2d(D.scenes.end_ms); }

  function ssimLike(a) { return D.ssim_like.indexOf(a) >= 0; }
  // scores in dB already (psnr): the logs' table of algorithms says which
  function dbScore(a) { return (D.in_db || []).indexOf(a) >= 0; }
  function inDb() { return sel.scale === "dB" && ssimLike(sel.algo); }
  function toDb(v) {
    if (v === null || v === undefined) return null;
    var d = 1 - v;
    return d <= Math.pow(10, -D.db_max / 10) ? D.db_max : -10 * Math.log10(d);
  }
  function conv(v) { return inDb() ? toDb(v) : v; }
  function convAll(a) { return inDb() ? a.map(toDb) : a; }
  function key() { return sel.algo + "|" + sel.plane; }
  function scaleKey() { return key() + "|" + (inDb() ? "dB" : "value"); }
  function metricName() {
    var n = (D.labels[sel.algo] || sel.algo) + " " + sel.plane;
    if (dbScore(sel.algo)) return n + " (dB)";
    return inDb() ? n + " (dB)" : n;
  }
  function fmt(v) {
    if (v === null || v === undefined || !isFinite(v)) return "\u2013";
    return (inDb() || dbScore(sel.algo)) ? v.toFixed(2) : v.toFixed(5);
  }
  function fmtDelta(v) {
    if (v === null || v === undefined || !isFinite(v)) return "\u2013";
    return (v > 0 ? "+" : "") + ((inDb() || dbScore(sel.algo)) ? v.toFixed(2) : v.toFixed(5));
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }[c];
    });
  }
  function sw(color) { return "<span class=sw style='background:" + color + "'></span>"; }
  function has(r) { return r.y ? (key() in r.y) : (key() in r.pooled); }
  function kbps(v) { return v === null || v === undefined ? "\u2013" : v.toFixed(0); }

  /* ---- report ---- */

  function pooledTable() {
    var el = document.getElementById("pooled");
    if (!el) return;
    var rungs = D.rungs.filter(has);
    var anyRate = rungs.some(function (r) { return r.kbps !== null; });
    var pairing = ["lacks", "excess", "damaged"].filter(function (c) {
      return rungs.some(function (r) { return r.pairing && r.pairing[c]; });
    });
    var cols = ["mean", "harmonic_mean", "min", "p1", "p5", "p50"];
    var heads = ["mean", "harmonic mean", "min", "p1", "p5", "median"];
    /* the next rung up: the next higher bitrate, else the next larger size */
    var order = rungs.slice().sort(function (a, b) {
      if (anyRate && a.kbps !== null && b.kbps !== null) return b.kbps - a.kbps;
      return b.pixels - a.pixels;
    });
    var up = {};
    order.forEach(function (r, i) { up[r.i] = i ? order[i - 1] : null; });
    var p5s = rungs.map(function (r) { return conv(r.pooled[key()].p5); });
    var worst = Math.min.apply(null, p5s.filter(isFinite));
    var h = "<table><tr><th class=l>rendition</th><th>size</th>" + (anyRate ? "<th>kbit/s</th>" : "") +
      "<th>frames</th>" + pairing.map(function (c) { return "<th>" + c + "</th>"; }).join("") +
      heads.map(function (c) { return "<th>" + c + "</th>"; }).join("") +
      "<th>mean &minus; next rung up</th></tr>";
    rungs.forEach(function (r, j) {
      var p = r.pooled[key()];
      var u = up[r.i];
      var d = u ? conv(p.mean) - conv(u.pooled[key()].mean) : null;
      h += "<tr" + (rungs.length > 1 && p5s[j] === worst ? " class=bad" : "") + "><td class=l>" +
        sw(r.color) + esc(r.name) + "</td><td>" + r.size + "</td>" +
        (anyRate ? "<td>" + kbps(r.kbps) + "</td>" : "") + "<td>" + r.frames + "</td>" +
        pairing.map(function (c) { return "<td>" + ((r.pairing && r.pairing[c]) || 0) + "</td>"; }).join("") +
        cols.map(function (c) { return "<td>" + fmt(conv(p[c])) + "</td>"; }).join("") +
        "<td>" + (u ? fmtDelta(d) + " <span class=note>vs " + esc(u.name) + "</span>" : "\u2013") +
        "</td></tr>";
    });
    el.innerHTML = h + "</table>";
  }

  var HOVER = "%{text}<br>frame %{customdata}<br>%{x|%H:%M:%S.%L}<br>%{y}<extra></extra>";

  function eventShapes(r, ax, shapes, notes) {
    r.events.forEach(function (ev) {
      shapes.push({ type: "rect", xref: "x" + ax, yref: "y" + ax + " domain", x0: ev[0], x1: ev[1],
        y0: 0, y1: 1, fillcolor: "#d62728", opacity: ev[2] === 1 ? 0.3 : 0.18, line: { width: 0 } });
      notes.push({ text: "#" + ev[2], xref: "x" + ax, yref: "y" + ax + " domain",
        x: ev[0], y: 0.98, xanchor: "left", yanchor: "top", showarrow: false,
        font: { size: 10, color: "#a00000" } });
    });
  }

  /* every rendition on one plot (a lone one with its events) */
  function timeline() {
    var el = document.getElementById("timeline");
    if (!el) return;
    var rungs = D.rungs.filter(has), shapes = [], notes = [];
    var traces = rungs.map(function (r) {
      return { type: "scatter", mode: "lines", x: r.xd, y: convAll(r.y[key()]), customdata: r.n,
        text: r.name, name: r.name + " (" + r.size + ")", hovertemplate: HOVER,
        line: { color: r.color, width: 1 } };
    });
    if (rungs.length === 1) eventShapes(rungs[0], "", shapes, notes);
    Plotly.react(el, traces, { height: 340, margin: { l: 70, r: 20, t: 10, b: 30 },
      showlegend: true, legend: { orientation: "h", y: -0.12, x: 0 }, hovermode: "closest",
      xaxis: timeAxis({}), yaxis: { gridcolor: "#eee", title: { text: metricName(), font: { size: 12 } } },
      shapes: shapes, annotations: notes }, CONFIG);
    syncZoom(el);
  }

  /* one small plot per rendition, its worst events shaded */
  function timelineRungs() {
    var el = document.getElementById("timeline-rungs");
    if (!el) return;
    var rungs = D.rungs.filter(has);
    if (rungs.length < 2) { el.style.display = "none"; return; }
    var gap = 0.3 / rungs.length, hgt = (1 - gap * (rungs.length - 1)) / rungs.length;
    var traces = [], shapes = [], notes = [], layout = {
      height: 60 + 110 * rungs.length, margin: { l: 70, r: 20, t: 20, b: 30 }, showlegend: false,
      hovermode: "closest" };
    rungs.forEach(function (r, j) {
      var ax = j ? String(j + 1) : "", top = 1 - j * (hgt + gap);
      layout["xaxis" + ax] = timeAxis({ anchor: "y" + ax, showticklabels: j === rungs.length - 1 });
      if (j) layout["xaxis" + ax].matches = "x";
      layout["yaxis" + ax] = { domain: [top - hgt, top], gridcolor: "#eee", anchor: "x" + ax,
        tickfont: { size: 10 } };
      traces.push({ type: "scatter", mode: "lines", x: r.xd, y: convAll(r.y[key()]),
        customdata: r.n, text: r.name, xaxis: "x" + ax, yaxis: "y" + ax, hovertemplate: HOVER,
        line: { color: r.color, width: 1 } });
      notes.push({ text: esc(r.name), xref: "x" + ax + " domain", yref: "y" + ax + " domain",
        x: 0, y: 1, xanchor: "left", yanchor: "bottom", showarrow: false,
        font: { size: 11, color: r.color } });
      eventShapes(r, ax, shapes, notes);
    });
    layout.shapes = shapes;
    layout.annotations = notes;
    Plotly.react(el, traces, layout, CONFIG);
    syncZoom(el);
  }

  /* zooming one time plot zooms the other */
  function syncZoom(el) {
    if (el._synced) return;
    el._synced = true;
    el.on("plotly_relayout", function (ev) {
      var other = document.getElementById(el.id === "timeline" ? "timeline-rungs" : "timeline");
      if (!other || !other.data || other._syncing) return;
      var upd = {};
      if (ev["xaxis.range[0]"] !== undefined) {
        upd["xaxis.range"] = [ev["xaxis.range[0]"], ev["xaxis.range[1]"]];
      } else if (ev["xaxis.autorange"]) {
        upd["xaxis.autorange"] = true;
      } else {
        return;
      }
      other._syncing = true;
      Plotly.relayout(other, upd).then(function () { other._syncing = false; });
    });
  }

  function distribution() {
    var el = document.getElementById("dist");
    if (!el) return;
    var dist = D.dist[scaleKey()];
    var rungs = D.rungs.filter(has);
    var traces = [];
    rungs.forEach(function (r) {
      var c = dist && dist.counts[r.i];
      if (c) {
        var xs = c.map(function (_, b) { return dist.lo + (b + 0.5) * (dist.hi - dist.lo) / c.length; });
        traces.push({ type: "scatter", mode: "lines", line: { shape: "hvh", color: r.color, width: 1.3 },
          x: xs, y: c, name: r.name, legendgroup: "r" + r.i, showlegend: false,
          hovertemplate: esc(r.name) + "<br>%{x}: %{y} frames<extra></extra>" });
      }
      var q = convAll(r.q[key()]);
      traces.push({ type: "scatter", mode: "lines", xaxis: "x2", yaxis: "y2", x: q,
        y: q.map(function (_, i) { return 100 * i / (q.length - 1); }), name: r.name,
        legendgroup: "r" + r.i, line: { color: r.color, width: 1.4 },
        hovertemplate: esc(r.name) + "<br>%{y:.1f}% of frames at or below %{x}<extra></extra>" });
    });
    Plotly.react(el, traces, {
      height: 380, margin: { l: 60, r: 20, t: 30, b: 50 }, showlegend: true,
      legend: { x: 0.56, y: 1, bgcolor: "rgba(255,255,255,0.8)" },
      xaxis: { domain: [0, 0.46], title: { text: metricName() }, gridcolor: "#eee" },
      yaxis: { title: { text: "frames" }, gridcolor: "#eee" },
      xaxis2: { domain: [0.54, 1], anchor: "y2", title: { text: metricName() }, gridcolor: "#eee" },
      yaxis2: { anchor: "x2", title: { text: "% of frames at or below" }, gridcolor: "#eee" },
      annotations: [
        { text: "Histogram", xref: "x domain", yref: "paper", x: 0, y: 1.07, showarrow: false, xanchor: "left" },
        { text: "Cumulative distribution", xref: "x2 domain", yref: "paper", x: 0, y: 1.07, showarrow: false, xanchor: "left" }]
    }, CONFIG);
  }

  /* rate-quality points of a list of rungs, their hull, one trace set per ladder */
  function rqTraces(rungs, hull, suffix, symbol, dash) {
    var traces = [], groups = {};
    rungs.forEach(function (r) {
      if (r.kbps === null || !(key() in r.pooled)) return;
      (groups[r.size] = groups[r.size] || []).push(r);
    });
    Object.keys(groups).forEach(function (size) {
      var g = groups[size].slice().sort(function (a, b) { return a.kbps - b.kbps; });
      if (g.length > 1)
        traces.push({ type: "scatter", mode: "lines", x: g.map(function (r) { return r.kbps; }),
          y: g.map(function (r) { return conv(r.pooled[key()].mean); }), showlegend: false,
          hoverinfo: "skip", line: { color: "#aaa", width: 1, dash: dash } });
    });
    rungs.forEach(function (r) {
      if (r.kbps === null || !(key() in r.pooled)) return;
      var p = r.pooled[key()];
      var m = conv(p.mean);
      traces.push({ type: "scatter", mode: "markers+text", x: [r.kbps], y: [m],
        text: [r.name], textposition: "top right", textfont: { size: 10 },
        marker: { color: r.color, size: 9, symbol: symbol }, name: r.name + suffix,
        error_y: { type: "data", symmetric: false, array: [0], arrayminus: [m - conv(p.p5)],
          color: r.color, thickness: 1, width: 0 },
        hovertemplate: esc(r.name) + suffix + " (" + r.size + ")<br>%{x:.0f} kbit/s<br>mean %{y}<extra></extra>" });
    });
    var hk = hull[scaleKey()] || [];
    if (hk.length > 1)
      traces.push({ type: "scatter", mode: "lines", name: "convex hull" + suffix,
        x: hk.map(function (i) { return rungs[i].kbps; }),
        y: hk.map(function (i) { return conv(rungs[i].pooled[key()].mean); }),
        line: { color: "#222", width: 2, dash: dash }, hoverinfo: "skip" });
    return traces;
  }

  function rqLayout() {
    return { height: 520, margin: { l: 70, r: 20, t: 10, b: 50 }, hovermode: "closest",
      xaxis: { type: "log", title: { text: "bitrate (kbit/s, log scale)" }, gridcolor: "#eee" },
      yaxis: { title: { text: "mean " + metricName() + "; bar down to p5" }, gridcolor: "#eee" },
      legend: { orientation: "h", x: 0, y: -0.18, yanchor: "top" } };
  }

  function hullTable(el, rungs, hull) {
    var hk = hull[scaleKey()] || [];
    if (!hk.length) { el.innerHTML = ""; return; }
    var h = "<table><tr><th class=l>on the hull</th><th>size</th><th>kbit/s</th><th>mean</th><th>p5</th></tr>";
    hk.forEach(function (i) {
      var r = rungs[i], p = r.pooled[key()];
      h += "<tr class=hull><td class=l>" + sw(r.color || "#222") + esc(r.name) + "</td><td>" + r.size +
        "</td><td>" + kbps(r.kbps) + "</td><td>" + fmt(conv(p.mean)) + "</td><td>" + fmt(conv(p.p5)) + "</td></tr>";
    });
    el.innerHTML = h + "</table>";
  }

  function rateQuality() {
    var el = document.getElementById("rq");
    if (!el) return;
    Plotly.react(el, rqTraces(D.rungs, D.hull, "", "circle", "solid"), rqLayout(), CONFIG);
    hullTable(document.getElementById("hull"), D.rungs, D.hull);
  }

  function scenes() {
    var el = document.getElementById("scenes");
    if (!el || !D.scenes) return;
    var S = D.scenes, traces = [];
    D.rungs.forEach(function (r) {
      var m = S.mean[r.i];
      if (!m) return;
      traces.push({ type: "scatter", mode: "lines", line: { shape: "hv", color: r.color, width: 1.3 },
        x: S.xd.concat([S.end]), y: m.concat([m[m.length - 1]]), name: r.name,
        customdata: S.first,
        hovertemplate: esc(r.name) + "<br>scene from frame %{customdata}<br>mean %{y}<extra></extra>" });
    });
    Plotly.react(el, traces, { height: 320, margin: { l: 70, r: 20, t: 10, b: 40 },
      xaxis: timeAxis({}),
      yaxis: { title: { text: "scene mean, " + S.metric }, gridcolor: "#eee" },
      legend: { orientation: "h", y: -0.15 } }, CONFIG);
  }

  /* ---- compare ---- */

  function compareRq() {
    var el = document.getElementById("rq");
    if (!el) return;
    var traces = [];
    D.sides.forEach(function (s, i) {
      traces = traces.concat(rqTraces(s.rungs, s.hull, " [" + s.label + "]", i ? "square" : "circle",
        i ? "dash" : "solid"));
    });
    Plotly.react(el, traces, rqLayout(), CONFIG);
  }

  function bdTable() {
    var el = document.getElementById("bd");
    if (!el) return;
    var scale = function (a) { return (sel.scale === "dB" && ssimLike(a)) ? "dB" : "value"; };
    var rows = D.bd.filter(function (b) { return b.plane === sel.plane && b.scale === scale(b.algo); });
    var h = "<table><tr><th class=l>metric</th><th class=l>curves</th><th>points A / B</th>" +
      "<th>BD-rate of B</th><th>BD-quality of B</th><th class=l>note</th></tr>";
    rows.forEach(function (b) {
      var unit = dbScore(b.algo) || b.scale === "dB" ? " dB" : "";
      var cls = b.bd_rate === null ? "" : (b.bd_rate < 0 ? " class=neg" : " class=pos");
      h += "<tr" + (b.algo === sel.algo ? " class=hull" : "") + "><td class=l>" +
        esc((D.labels[b.algo] || b.algo) + " " + b.plane + (b.scale === "dB" && !dbScore(b.algo) ? " (dB)" : "")) +
        "</td><td class=l>" + esc(b.scope) + "</td><td>" + b.a_points.length + " / " + b.b_points.length +
        "</td><td" + cls + ">" + (b.bd_rate === null ? "\u2013" : (b.bd_rate > 0 ? "+" : "") + b.bd_rate.toFixed(2) + " %") +
        "</td><td>" + (b.bd_quality === null ? "\u2013" : (b.bd_quality > 0 ? "+" : "") +
          b.bd_quality.toFixed(b.scale === "value" && !dbScore(b.algo) ? 5 : 3) + unit) +
        "</td><td class='l w'>" + esc(b.note || "") + "</td></tr>";
    });
    el.innerHTML = h + "</table>";
  }

  /* A plot is drawn once it is within a screen of the window: what a
   * reader sees first is drawn first, the rest as it scrolls into view. */
  var pending = {};
  var observer = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      var f = pending[e.target.id];
      if (e.isIntersecting && f) { delete pending[e.target.id]; f(); }
    });
  }, { rootMargin: "100% 0px" }) : null;
  function near(el) {
    var r = el.getBoundingClientRect(), h = window.innerHeight || 800;
    return r.bottom > -h && r.top < 2 * h;
  }
  function lazy(id, f) {
    var el = document.getElementById(id);
    if (!el) return;
    if (window.Plotly && (!observer || near(el))) {
      delete pending[id];
      /* a still picture shown until plotly.js draws (report.py) */
      var still = el.querySelector(".still");
      if (still) el.removeChild(still);
      f();
      return;
    }
    if (!(id in pending) && observer) observer.observe(el);
    pending[id] = f;
  }

  function drawAll() {
    var scaleSel = document.getElementById("sel-scale");
    if (scaleSel) scaleSel.disabled = !ssimLike(sel.algo);
    var note = document.getElementById("sel-note");
    if (note) note.textContent = ssimLike(sel.algo) ? "" : "(PSNR is in dB already)";
    if (D.kind === "compare") {
      bdTable();
      lazy("rq", compareRq);
      hullTable(document.getElementById("hull-a"), D.sides[0].rungs, D.sides[0].hull);
      hullTable(document.getElementById("hull-b"), D.sides[1].rungs, D.sides[1].hull);
    } else {
      pooledTable();
      lazy("timeline", timeline);
      lazy("timeline-rungs", timelineRungs);
      lazy("dist", distribution);
      lazy("rq", rateQuality);
      lazy("scenes", scenes);
    }
    var m = document.querySelectorAll(".metric-name");
    for (var i = 0; i < m.length; i++) m[i].textContent = metricName();
  }

  ["algo", "plane", "scale"].forEach(function (k) {
    var s = document.getElementById("sel-" + k);
    if (!s) return;
    s.value = sel[k];
    s.addEventListener("change", function () {
      sel[k] = s.value;
      history.replaceState(null, "", "#algo=" + sel.algo + "&plane=" + sel.plane + "&scale=" + sel.scale);
      drawAll();
    });
  });
  /* The page opens with its tables, pictures and still plots; plotly.js
   * (4-5 MB) starts once that is painted, and then draws the plots near
   * the window. */
  drawAll();
  document.body.setAttribute("data-open-ms", performance.now().toFixed(0));
  function startPlotly() {
    var src = document.getElementById("plotly-js");
    if (src && !window.Plotly) {
      var s = document.createElement("script");
      s.text = src.textContent;
      document.head.appendChild(s);
    }
    drawAll();
    document.body.setAttribute("data-render-ms", performance.now().toFixed(0));
    document.body.setAttribute("data-pending", Object.keys(pending).join(" "));
    document.body.classList.add("drawn");
  }
  if (window.Plotly) startPlotly();
  else requestAnimationFrame(function () { setTimeout(startPlotly, 0); });
})();
