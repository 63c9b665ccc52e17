/* evalhouse report charts: a small inline-SVG renderer, no libraries and no network.
 *
 * Each <figure class="chart"> holds a <script type="application/json" class="chart-spec"> with
 * {kind, x, y, series, value, low, high, x_label, y_label, data}. Every drawn datum gets
 * class "mark" and a <title> tooltip. Bars and arrows are horizontal: long category labels
 * (model names, operators) stay readable.
 */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                 "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
  var WIDTH = 760;
  var CHAR_PX = 6.4;          // average glyph width of the 11px axis font, for layout only
  var MAX_LABEL_PX = 210;
  var LEGEND_ROW = 18;

  /* ---------- small helpers ---------- */

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG_NS, name);
    for (var key in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, key) && attrs[key] !== null && attrs[key] !== undefined) {
        node.setAttribute(key, attrs[key]);
      }
    }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function text(parent, x, y, content, attrs) {
    var node = el("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
    node.textContent = content;
    return node;
  }

  function tooltip(node, content) {
    el("title", {}, node).textContent = content;
    return node;
  }

  function mark(name, attrs, parent, tip) {
    attrs["class"] = attrs["class"] ? "mark " + attrs["class"] : "mark";
    var node = el(name, attrs, parent);
    if (tip) { tooltip(node, tip); }
    return node;
  }

  function num(value) {
    if (value === null || value === undefined || value === "" || typeof value === "boolean") { return NaN; }
    return typeof value === "number" ? value : Number(value);
  }

  function finite(value) { return isFinite(num(value)); }

  function label(value) { return value === null || value === undefined ? "(none)" : String(value); }

  function unique(values) {
    var seen = {}, out = [];
    values.forEach(function (v) {
      var key = label(v);
      if (!Object.prototype.hasOwnProperty.call(seen, key)) { seen[key] = true; out.push(key); }
    });
    return out;
  }

  function trimZeros(s) {
    return s.indexOf(".") >= 0 && s.indexOf("e") < 0 ? s.replace(/\.?0+$/, "") : s;
  }

  function fmt(value) {
    var v = num(value);
    if (!isFinite(v)) { return "–"; }
    var a = Math.abs(v);
    if (a >= 1e9) { return trimZeros((v / 1e9).toPrecision(3)) + "B"; }
    if (a >= 1e6) { return trimZeros((v / 1e6).toPrecision(3)) + "M"; }
    if (a >= 1e4) { return trimZeros((v / 1e3).toPrecision(3)) + "k"; }
    if (Number.isInteger(v)) { return String(v); }
    if (a >= 100) { return v.toFixed(0); }
    if (a >= 1) { return trimZeros(v.toFixed(2)); }
    return trimZeros(v.toPrecision(2));
  }

  function truncate(s, maxPx) {
    var maxChars = Math.max(4, Math.floor(maxPx / CHAR_PX));
    return s.length > maxChars ? s.slice(0, maxChars - 1) + "…" : s;
  }

  function labelWidth(labels) {
    var longest = labels.reduce(function (m, s) { return Math.max(m, s.length); }, 0);
    return Math.min(MAX_LABEL_PX, Math.max(36, longest * CHAR_PX + 10));
  }

  function niceStep(raw) {
    var pow = Math.pow(10, Math.floor(Math.log10(raw)));
    var f = raw / pow;
    return (f >= 7.5 ? 10 : f >= 3.5 ? 5 : f >= 1.5 ? 2 : 1) * pow;
  }

  /* A padded, rounded domain covering `values` (plus 0 when asked) and its tick values. */
  function niceDomain(values, includeZero) {
    var vals = values.filter(isFinite);
    if (includeZero) { vals.push(0); }
    var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (lo === hi) { var pad = lo === 0 ? 1 : Math.abs(lo) * 0.1; lo -= includeZero && lo >= 0 ? 0 : pad; hi += pad; }
    var step = niceStep((hi - lo) / 5);
    var start = Math.floor(lo / step) * step, end = Math.ceil(hi / step) * step;
    var ticks = [];
    for (var t = start; t <= end + step / 2; t += step) { ticks.push(parseFloat(t.toPrecision(12))); }
    return { lo: start, hi: end, ticks: ticks };
  }

  function linear(d0, d1, r0, r1) {
    var span = d1 - d0 || 1;
    return function (v) { return r0 + (v - d0) / span * (r1 - r0); };
  }

  function colorScale(keys) {
    var index = {};
    keys.forEach(function (k, i) { index[k] = PALETTE[i % PALETTE.length]; });
    return function (k) { return index[label(k)] || PALETTE[0]; };
  }

  function newSvg(container, height, title, width) {
    var w = Math.ceil(width || WIDTH);
    var svg = el("svg", { viewBox: "0 0 " + w + " " + Math.ceil(height), width: "100%",
                          role: "img", "aria-label": title, preserveAspectRatio: "xMinYMin meet" });
    svg.style.maxWidth = w + "px";
    container.appendChild(svg);
    return svg;
  }

  /* Legend of coloured swatches, wrapped in rows; returns the height it used. */
  function legend(svg, keys, color, top, extra) {
    if (keys.length < 2 && !extra) { return 0; }
    var g = el("g", { "class": "legend" }, svg);
    var x = 10, y = top + 12;
    var items = keys.map(function (k) { return { key: k, color: color(k) }; });
    items.forEach(function (item) {
      var w = 18 + Math.min(item.key.length, 28) * CHAR_PX + 14;
      if (x + w > WIDTH - 10) { x = 10; y += LEGEND_ROW; }
      el("rect", { x: x, y: y - 9, width: 11, height: 11, rx: 2, fill: item.color }, g);
      tooltip(text(g, x + 16, y, truncate(item.key, 28 * CHAR_PX)), item.key);
      x += w;
    });
    if (extra) {
      if (keys.length >= 2) { y += LEGEND_ROW; }
      text(g, 10, y, extra, { "class": "legend-note" });
    }
    return y - top + 8;
  }

  function valueAxis(svg, dom, scale, y0, y1, horizontal, axisTitle, titlePos) {
    var g = el("g", { "class": "axis" }, svg);
    dom.ticks.forEach(function (t) {
      var p = scale(t);
      if (horizontal) {
        el("line", { x1: p, x2: p, y1: y0, y2: y1, "class": "grid" }, g);
        text(g, p, y1 + 14, fmt(t), { "text-anchor": "middle" });
      } else {
        el("line", { x1: y0, x2: y1, y1: p, y2: p, "class": "grid" }, g);
        text(g, y0 - 6, p + 4, fmt(t), { "text-anchor": "end" });
      }
    });
    if (axisTitle) {
      if (horizontal) {
        text(g, (scale(dom.lo) + scale(dom.hi)) / 2, y1 + 32, axisTitle, { "text-anchor": "middle", "class": "axis-title" });
      } else {
        text(g, 0, 0, axisTitle, { "text-anchor": "middle", "class": "axis-title",
             transform: "translate(" + titlePos + "," + (scale(dom.lo) + scale(dom.hi)) / 2 + ") rotate(-90)" });
      }
    }
  }

  function describe(parts) { return parts.filter(function (p) { return p; }).join(" · "); }

  function intervalText(row, spec) {
    if (!spec.low || !spec.high || !finite(row[spec.low]) || !finite(row[spec.high])) { return ""; }
    return " [" + fmt(row[spec.low]) + ", " + fmt(row[spec.high]) + "]";
  }

  function errorBar(g, spec, row, scale, at, horizontal, color) {
    if (!spec.low || !spec.high || !finite(row[spec.low]) || !finite(row[spec.high])) { return; }
    var a = scale(num(row[spec.low])), b = scale(num(row[spec.high])), cap = 4;
    var d = horizontal
      ? "M" + a + "," + (at - cap) + "V" + (at + cap) + "M" + a + "," + at + "H" + b + "M" + b + "," + (at - cap) + "V" + (at + cap)
      : "M" + (at - cap) + "," + a + "H" + (at + cap) + "M" + at + "," + a + "V" + b + "M" + (at - cap) + "," + b + "H" + (at + cap);
    mark("path", { d: d, "class": "errorbar", stroke: color || "#333" }, g,
         "interval: " + fmt(row[spec.low]) + " to " + fmt(row[spec.high]));
  }

  function seriesKeys(spec) {
    return spec.series ? unique(spec.data.map(function (r) { return r[spec.series]; })) : [];
  }

  /* ---------- bar and grouped bar (horizontal) ---------- */

  function drawBars(container, spec) {
    var data = spec.data.filter(function (r) { return finite(r[spec.y]); });
    var cats = unique(data.map(function (r) { return r[spec.x]; }));
    var series = spec.kind === "grouped_bar" ? seriesKeys({ series: spec.series, data: data }) : [];
    var groups = Math.max(1, series.length);
    var barH = groups > 1 ? Math.max(8, Math.min(16, 40 / groups)) : 18;
    var bandH = groups * barH + 10;
    var labelW = labelWidth(cats);
    var color = colorScale(series);
    var values = [];
    data.forEach(function (r) {
      values.push(num(r[spec.y]));
      if (spec.low) { values.push(num(r[spec.low])); }
      if (spec.high) { values.push(num(r[spec.high])); }
    });
    var dom = niceDomain(values, true);
    var probe = document.createElementNS(SVG_NS, "g");
    var legendH = legend(probe, series, color, 0);
    var top = 8 + legendH, left = labelW + (spec.x_label ? 24 : 8), right = 40;
    var plotH = cats.length * bandH;
    var svg = newSvg(container, top + plotH + 44, spec.title);
    legend(svg, series, color, 0);
    var scale = linear(dom.lo, dom.hi, left, WIDTH - right);
    valueAxis(svg, dom, scale, top, top + plotH, true, spec.y_label);
    var g = el("g", { "class": "marks" }, svg);
    var catIndex = {};
    cats.forEach(function (c, i) {
      catIndex[c] = i;
      var cy = top + i * bandH + bandH / 2;
      tooltip(text(svg, left - 6, cy + 4, truncate(c, labelW - 6), { "text-anchor": "end", "class": "cat-label" }), c);
    });
    if (spec.x_label) {
      text(svg, 0, 0, spec.x_label, { "text-anchor": "middle", "class": "axis-title",
           transform: "translate(12," + (top + plotH / 2) + ") rotate(-90)" });
    }
    var seriesIndex = {};
    series.forEach(function (s, i) { seriesIndex[s] = i; });
    data.forEach(function (r) {
      var cat = label(r[spec.x]);
      var slot = groups > 1 ? seriesIndex[label(r[spec.series])] : 0;
      var y = top + catIndex[cat] * bandH + 5 + slot * barH;
      var v = num(r[spec.y]);
      var x0 = scale(0), x1 = scale(v);
      var fill = groups > 1 ? color(r[spec.series]) : PALETTE[0];
      var tip = describe([cat, groups > 1 ? label(r[spec.series]) : "", (spec.y_label || spec.y) + ": " + fmt(v) + intervalText(r, spec)]);
      mark("rect", { x: Math.min(x0, x1), y: y, width: Math.max(1, Math.abs(x1 - x0)), height: barH - 2, fill: fill }, g, tip);
      errorBar(g, spec, r, scale, y + (barH - 2) / 2, true);
      var end = Math.max(x1, spec.high && finite(r[spec.high]) ? scale(num(r[spec.high])) : x1);
      if (barH >= 10 && v >= 0) { text(g, end + 4, y + barH / 2 + 2, fmt(v), { "class": "value-label" }); }
      if (barH >= 10 && v < 0) {
        var start = Math.min(x1, spec.low && finite(r[spec.low]) ? scale(num(r[spec.low])) : x1);
        text(g, start - 4, y + barH / 2 + 2, fmt(v), { "class": "value-label", "text-anchor": "end" });
      }
    });
  }

  /* ---------- line and scatter ---------- */

  /* Path through the points in x order; a missing y breaks the line instead of bridging it. */
  function linePath(rows, xOf, yOf, yField) {
    var sorted = rows.slice().sort(function (a, b) { return xOf(a) - xOf(b); });
    var d = "", pen = false, segments = 0;
    sorted.forEach(function (r) {
      if (!finite(r[yField])) { pen = false; return; }
      d += (pen ? "L" : "M") + xOf(r).toFixed(1) + "," + yOf(r).toFixed(1);
      if (pen) { segments += 1; }
      pen = true;
    });
    return segments ? d : "";
  }

  function xAxisModel(spec, data) {
    var numeric = data.every(function (r) { return typeof r[spec.x] === "number"; });
    if (numeric) {
      return { numeric: true, dom: niceDomain(data.map(function (r) { return r[spec.x]; }), false) };
    }
    return { numeric: false, cats: unique(data.map(function (r) { return r[spec.x]; })) };
  }

  function drawXY(container, spec) {
    var withX = spec.data.filter(function (r) { return r[spec.x] !== null && r[spec.x] !== undefined; });
    var data = withX.filter(function (r) { return finite(r[spec.y]); });
    var series = seriesKeys({ series: spec.series, data: data });
    var color = colorScale(series);
    var xm = xAxisModel(spec, withX);
    var yValues = [];
    data.forEach(function (r) {
      yValues.push(num(r[spec.y]));
      if (spec.low) { yValues.push(num(r[spec.low])); }
      if (spec.high) { yValues.push(num(r[spec.high])); }
    });
    var ydom = niceDomain(yValues, false);
    var probe = document.createElementNS(SVG_NS, "g");
    var legendH = legend(probe, series, color, 0);
    var catLabels = xm.numeric ? [] : xm.cats;
    var rotate = catLabels.length > 6 || catLabels.some(function (c) { return c.length > 10; });
    var bottom = rotate ? Math.min(120, labelWidth(catLabels) * 0.7 + 30) : 46;
    var top = 10 + legendH, left = 64, right = 20, plotH = 260;
    var svg = newSvg(container, top + plotH + bottom, spec.title);
    legend(svg, series, color, 0);
    var yScale = linear(ydom.lo, ydom.hi, top + plotH, top);
    valueAxis(svg, ydom, yScale, left, WIDTH - right, false, spec.y_label, 14);
    var xScale, xOf;
    var axis = el("g", { "class": "axis" }, svg);
    if (xm.numeric) {
      xScale = linear(xm.dom.lo, xm.dom.hi, left, WIDTH - right);
      xOf = function (r) { return xScale(num(r[spec.x])); };
      xm.dom.ticks.forEach(function (t) { text(axis, xScale(t), top + plotH + 14, fmt(t), { "text-anchor": "middle" }); });
    } else {
      var step = (WIDTH - right - left) / Math.max(1, xm.cats.length);
      var pos = {};
      xm.cats.forEach(function (c, i) { pos[c] = left + step * (i + 0.5); });
      xOf = function (r) { return pos[label(r[spec.x])]; };
      var every = Math.max(1, Math.ceil(xm.cats.length / 30));
      xm.cats.forEach(function (c, i) {
        if (i % every) { return; }
        var attrs = rotate
          ? { "text-anchor": "end", transform: "rotate(-40," + pos[c] + "," + (top + plotH + 12) + ")" }
          : { "text-anchor": "middle" };
        tooltip(text(axis, pos[c], top + plotH + 12, truncate(c, 140), attrs), c);
      });
    }
    el("line", { x1: left, x2: WIDTH - right, y1: top + plotH, y2: top + plotH, "class": "baseline" }, axis);
    if (spec.x_label) {
      text(axis, (left + WIDTH - right) / 2, top + plotH + bottom - 6, spec.x_label, { "text-anchor": "middle", "class": "axis-title" });
    }
    var g = el("g", { "class": "marks" }, svg);
    var groups = series.length ? series : ["(all)"];
    groups.forEach(function (s) {
      var inSeries = function (r) { return !series.length || label(r[spec.series]) === s; };
      var rows = data.filter(inSeries);
      var c = series.length ? color(s) : PALETTE[0];
      if (spec.kind === "line") {
        var d = linePath(withX.filter(inSeries), xOf, function (r) { return yScale(num(r[spec.y])); }, spec.y);
        if (d) { mark("path", { d: d, fill: "none", stroke: c, "stroke-width": 2, "class": "line" }, g, series.length ? s : spec.title); }
      }
      rows.forEach(function (r) {
        errorBar(g, spec, r, yScale, xOf(r), false, c);
        var tip = describe([series.length ? s : "", (spec.x_label || spec.x) + ": " + label(r[spec.x]),
                            (spec.y_label || spec.y) + ": " + fmt(r[spec.y]) + intervalText(r, spec)]);
        mark("circle", { cx: xOf(r), cy: yScale(num(r[spec.y])), r: spec.kind === "line" ? 3.5 : 4.5,
                         fill: c, "fill-opacity": spec.kind === "line" ? 1 : 0.8, stroke: "#fff" }, g, tip);
      });
    });
  }

  /* ---------- heatmap ---------- */

  function mix(a, b, t) {
    var pa = [1, 3, 5].map(function (i) { return parseInt(a.slice(i, i + 2), 16); });
    var pb = [1, 3, 5].map(function (i) { return parseInt(b.slice(i, i + 2), 16); });
    return "rgb(" + pa.map(function (v, i) { return Math.round(v + (pb[i] - v) * t); }).join(",") + ")";
  }

  function heatColor(lo, hi) {
    if (lo < 0 && hi > 0) {
      var m = Math.max(-lo, hi);
      return function (v) { return v < 0 ? mix("#f7f7f7", "#2166ac", -v / m) : mix("#f7f7f7", "#b2182b", v / m); };
    }
    return function (v) { return mix("#f1f6fb", "#08306b", hi === lo ? 0.5 : (v - lo) / (hi - lo)); };
  }

  function luminanceDark(rgb) {
    var parts = rgb.match(/\d+/g).map(Number);
    return 0.299 * parts[0] + 0.587 * parts[1] + 0.114 * parts[2] < 140;
  }

  function drawHeatmap(container, spec, chartId) {
    var data = spec.data;
    var cols = unique(data.map(function (r) { return r[spec.x]; }));
    var rows = unique(data.map(function (r) { return r[spec.y]; }));
    var numeric = data.some(function (r) { return finite(r[spec.value]); });
    var values = data.map(function (r) { return num(r[spec.value]); }).filter(isFinite);
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    var categories = numeric ? [] : unique(data.map(function (r) { return r[spec.value]; }));
    var catColor = colorScale(categories);
    var color = numeric ? heatColor(lo, hi) : function (v) { return catColor(v); };
    var labelW = labelWidth(rows);
    var left = labelW + (spec.y_label ? 24 : 8), right = 20;
    var cellW = Math.max(18, Math.min(90, (WIDTH - left - right) / Math.max(1, cols.length)));
    var colLabelW = labelWidth(cols);
    var rotateCols = cols.some(function (c) { return c.length * CHAR_PX > cellW - 4; });
    var headerH = (rotateCols ? Math.min(140, colLabelW * 0.75 + 10) : 20) + (spec.x_label ? 18 : 0);
    var cellH = 22, top = 6 + headerH;
    var legendTop = top + rows.length * cellH + 14;
    var svg = newSvg(container, legendTop + 40, spec.title, Math.max(WIDTH, left + cols.length * cellW + right));
    if (spec.x_label) { text(svg, left + cellW * cols.length / 2, 14, spec.x_label, { "text-anchor": "middle", "class": "axis-title" }); }
    if (spec.y_label) {
      text(svg, 0, 0, spec.y_label, { "text-anchor": "middle", "class": "axis-title",
           transform: "translate(12," + (top + rows.length * cellH / 2) + ") rotate(-90)" });
    }
    var colX = {}, rowY = {};
    cols.forEach(function (c, i) {
      colX[c] = left + i * cellW;
      var cx = colX[c] + cellW / 2, cy = top - 6;
      var attrs = rotateCols ? { "text-anchor": "start", transform: "rotate(-40," + cx + "," + cy + ")" } : { "text-anchor": "middle" };
      tooltip(text(svg, cx, cy, truncate(c, 130), attrs), c);
    });
    rows.forEach(function (r, i) {
      rowY[r] = top + i * cellH;
      tooltip(text(svg, left - 6, rowY[r] + cellH / 2 + 4, truncate(r, labelW - 6), { "text-anchor": "end", "class": "cat-label" }), r);
    });
    var g = el("g", { "class": "marks" }, svg);
    data.forEach(function (r) {
      var cx = colX[label(r[spec.x])], cy = rowY[label(r[spec.y])];
      var v = r[spec.value];
      var present = numeric ? finite(v) : v !== null && v !== undefined;
      var tip = describe([label(r[spec.y]), label(r[spec.x]), (spec.value) + ": " + (numeric ? fmt(v) : label(v))]);
      if (!present) {
        tooltip(el("rect", { x: cx + 1, y: cy + 1, width: cellW - 2, height: cellH - 2, "class": "empty-cell" }, g), tip);
        return;
      }
      var fill = numeric ? color(num(v)) : color(v);
      mark("rect", { x: cx + 1, y: cy + 1, width: cellW - 2, height: cellH - 2, fill: fill }, g, tip);
      if (numeric && cellW >= 30) {
        var cellText = text(g, cx + cellW / 2, cy + cellH / 2 + 4, fmt(v), { "text-anchor": "middle", "class": "cell-label" });
        cellText.style.fill = luminanceDark(fill) ? "#fff" : "#222";
      }
    });
    if (numeric) {
      var gradId = chartId + "-grad";
      var defs = el("defs", {}, svg);
      var grad = el("linearGradient", { id: gradId, x1: "0", x2: "1", y1: "0", y2: "0" }, defs);
      [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
        el("stop", { offset: t, "stop-color": color(lo + (hi - lo) * t) }, grad);
      });
      el("rect", { x: left, y: legendTop, width: 160, height: 10, fill: "url(#" + gradId + ")", "class": "legend-scale" }, svg);
      text(svg, left, legendTop + 24, fmt(lo), { "text-anchor": "start" });
      text(svg, left + 160, legendTop + 24, fmt(hi), { "text-anchor": "end" });
      text(svg, left + 170, legendTop + 9, spec.value, { "class": "legend-note" });
    } else {
      legend(svg, categories, catColor, legendTop - 10);
    }
  }

  /* ---------- arrows: from -> to per label ---------- */

  function drawArrows(container, spec) {
    var data = spec.data.filter(function (r) { return finite(r[spec.y]) && finite(r[spec.value]); });
    var labels = unique(data.map(function (r) { return r[spec.x]; }));
    var series = seriesKeys({ series: spec.series, data: data });
    var color = colorScale(series);
    var groups = Math.max(1, series.length);
    var laneH = groups > 1 ? 12 : 20, bandH = groups * laneH + 8;
    var labelW = labelWidth(labels);
    var values = [];
    data.forEach(function (r) { values.push(num(r[spec.y]), num(r[spec.value])); });
    var dom = niceDomain(values, false);
    var note = "○ " + spec.y + "  →  ▶ " + spec.value;
    var probe = document.createElementNS(SVG_NS, "g");
    var legendH = legend(probe, series, color, 0, note);
    var top = 8 + legendH, left = labelW + (spec.x_label ? 24 : 8), right = 24, plotH = labels.length * bandH;
    var svg = newSvg(container, top + plotH + 44, spec.title);
    legend(svg, series, color, 0, note);
    var scale = linear(dom.lo, dom.hi, left, WIDTH - right);
    valueAxis(svg, dom, scale, top, top + plotH, true, spec.y_label);
    if (spec.x_label) {
      text(svg, 0, 0, spec.x_label, { "text-anchor": "middle", "class": "axis-title",
           transform: "translate(12," + (top + plotH / 2) + ") rotate(-90)" });
    }
    var rowIndex = {}, seriesIndex = {};
    labels.forEach(function (l, i) {
      rowIndex[l] = i;
      tooltip(text(svg, left - 6, top + i * bandH + bandH / 2 + 4, truncate(l, labelW - 6), { "text-anchor": "end", "class": "cat-label" }), l);
    });
    series.forEach(function (s, i) { seriesIndex[s] = i; });
    var g = el("g", { "class": "marks" }, svg);
    data.forEach(function (r) {
      var lane = groups > 1 ? seriesIndex[label(r[spec.series])] : 0;
      var y = top + rowIndex[label(r[spec.x])] * bandH + 4 + lane * laneH + laneH / 2;
      var from = num(r[spec.y]), to = num(r[spec.value]);
      var x0 = scale(from), x1 = scale(to);
      var c = groups > 1 ? color(r[spec.series]) : PALETTE[0];
      var delta = to - from;
      var tip = describe([label(r[spec.x]), groups > 1 ? label(r[spec.series]) : "",
                          spec.y + " " + fmt(from) + " → " + spec.value + " " + fmt(to) + " (" + (delta >= 0 ? "+" : "") + fmt(delta) + ")"]);
      var dir = x1 >= x0 ? 1 : -1, head = 7;
      if (Math.abs(x1 - x0) > head) {
        mark("path", { d: "M" + x0 + "," + y + "H" + (x1 - dir * head), stroke: c, "stroke-width": 2, fill: "none", "class": "arrow-shaft" }, g, tip);
        mark("path", { d: "M" + x1 + "," + y + "L" + (x1 - dir * head) + "," + (y - 4) + "L" + (x1 - dir * head) + "," + (y + 4) + "Z",
                       fill: c, "class": "arrow-head" }, g, tip);
      }
      mark("circle", { cx: x0, cy: y, r: 3.5, fill: "#fff", stroke: c, "stroke-width": 1.5 }, g, tip);
      if (Math.abs(x1 - x0) <= head) { mark("circle", { cx: x1, cy: y, r: 2, fill: c }, g, tip); }
    });
  }

  /* ---------- entry point ---------- */

  var DRAW = { bar: drawBars, grouped_bar: drawBars, line: drawXY, scatter: drawXY,
               heatmap: drawHeatmap, arrows: drawArrows };

  function renderFigure(figure) {
    var specNode = figure.querySelector("script.chart-spec");
    var canvas = figure.querySelector(".chart-canvas");
    try {
      var spec = JSON.parse(specNode.textContent);
      var draw = DRAW[spec.kind];
      if (!draw) { throw new Error("unknown chart kind " + spec.kind); }
      draw(canvas, spec, figure.id);
      figure.setAttribute("data-rendered", String(canvas.querySelectorAll(".mark").length));
    } catch (err) {
      canvas.textContent = "This chart could not be drawn: " + err.message;
      canvas.className += " chart-failed";
      console.error("evalhouse chart " + figure.id + " failed: " + (err && err.stack || err));
    }
  }

  function renderAll() {
    Array.prototype.forEach.call(document.querySelectorAll("figure.chart"), renderFigure);
    document.body.setAttribute("data-charts-rendered", "true");
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", renderAll);
  } else {
    renderAll();
  }
})();
