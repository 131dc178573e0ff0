// The script of the HTML report (html-report.ts), run by the browser that opens the file: it
// draws the charts with uPlot (inlined beside it) from the report's JSON, and writes what it
// drew (or the errors it met) into #smq-status, which the report's test reads back.
// Plain browser JavaScript in a string: it never runs in Node.
export const CHARTS_SCRIPT = String.raw`
(function () {
  'use strict';
  var R = JSON.parse(document.getElementById('smq-report').textContent);
  var status = { charts: [], errors: [] };
  var statusEl = document.getElementById('smq-status');
  function writeStatus() { statusEl.textContent = JSON.stringify(status); }
  window.addEventListener('error', function (e) { status.errors.push(String(e.message)); writeStatus(); });

  var COLORS = ['#1f77b4', '#2ca02c', '#ff7f0e', '#d62728', '#9467bd', '#8c564b', '#e377c2'];
  var baseEl = document.getElementById('smq-baseline');
  var B = baseEl ? JSON.parse(baseEl.textContent) : null;
  // One x axis for both runs: every second of the longer one; a run's missing seconds are gaps.
  function bySecond(s) { var m = {}; (s || []).forEach(function (p) { m[p.second] = p; }); return m; }
  var runAt = bySecond(R.series), baseAt = B ? bySecond(B.series) : {};
  var last = -1;
  (R.series || []).concat(B ? B.series || [] : []).forEach(function (p) { if (p.second > last) last = p.second; });
  var seconds = []; for (var s = 0; s <= last; s++) seconds.push(s);
  var series = seconds.map(function (s) { return runAt[s] || { second: s }; });
  var baseSeries = seconds.map(function (s) { return baseAt[s] || { second: s }; });
  var warmupSec = (R.config && R.config.warmupMs ? R.config.warmupMs : 0) / 1000;
  var faultSeconds = series.filter(function (p) { return p.faults && p.faults.length; }).map(function (p) { return p.second; });
  var errorSeconds = series.filter(function (p) { return p.errors > 0; }).map(function (p) { return p.second; });
  var width = Math.min(1100, document.body.clientWidth - 40);

  // Warm-up shaded, faults as red lines, seconds with errors as orange ticks on the x axis.
  function marks(u) {
    var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    if (warmupSec > 0) {
      var x0 = u.valToPos(seconds[0] || 0, 'x', true), x1 = u.valToPos(warmupSec, 'x', true);
      ctx.fillStyle = 'rgba(128,128,128,0.15)';
      ctx.fillRect(x0, top, Math.max(0, x1 - x0), h);
    }
    ctx.strokeStyle = '#d62728'; ctx.lineWidth = 2;
    faultSeconds.forEach(function (s) { var x = u.valToPos(s, 'x', true); ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke(); });
    ctx.fillStyle = '#ff7f0e';
    errorSeconds.forEach(function (s) { var x = u.valToPos(s, 'x', true); ctx.fillRect(x - 2, top + h - 6, 4, 6); });
    ctx.restore();
  }

  function chart(id, title, xLabel, yLabel, xs, lines, opts) {
    opts = opts || {};
    var el = document.getElementById(id);
    var data = [xs].concat(lines.map(function (l) { return l.values; }));
    var u = new uPlot({
      title: title, width: width, height: 300,
      scales: { x: { time: false, distr: opts.logX ? 3 : 1 }, y: { distr: opts.logY ? 3 : 1 } },
      axes: [{ label: xLabel, values: opts.xValues, splits: opts.xSplits }, { label: yLabel }],
      series: [{ label: xLabel }].concat(lines.map(function (l, i) {
        return { label: l.label, stroke: l.label.indexOf('baseline') === 0 ? '#777' : COLORS[i % COLORS.length], width: 1.5, dash: l.dash, spanGaps: false };
      })),
      hooks: opts.marks ? { draw: [marks] } : {},
    }, data, el);
    status.charts.push({ id: id, points: xs.length, series: lines.length, xLabel: xLabel, yLabel: yLabel,
      canvas: !!el.querySelector('canvas') });
    return u;
  }

  function pick(key, from) { return (from || series).map(function (p) { return p[key] === undefined ? null : p[key]; }); }
  function withBaseline(lines, label, values) {
    return B ? lines.concat([{ label: 'baseline ' + label, values: values, dash: [6, 4] }]) : lines;
  }
  function cumulative(values) { var t = 0; return values.map(function (v) { t += v || 0; return t; }); }

  try {
    chart('c-throughput', 'Messages per second', 'seconds since the start', 'messages/s', seconds, withBaseline([
      { label: 'sent', values: pick('sent') },
      { label: 'received', values: pick('received') },
      { label: 'acknowledged', values: pick('acknowledged') },
    ], 'received', pick('received', baseSeries)), { marks: true });

    var e2e = function (k, from) { return (from || series).map(function (p) { return p.latency && p.latency.endToEnd ? p.latency.endToEnd[k] : null; }); };
    chart('c-latency', 'End-to-end latency per second', 'seconds since the start', 'ms', seconds, withBaseline([
      { label: 'p50', values: e2e('p50') }, { label: 'p99', values: e2e('p99') }, { label: 'max', values: e2e('max') },
    ], 'p99', e2e('p99', baseSeries)), { marks: true });

    var call = function (kind, k) { return series.map(function (p) { return p.latency && p.latency[kind] ? p.latency[kind][k] : null; }); };
    chart('c-calls', 'Call latency per second (p50 dashed, p99 solid)', 'seconds since the start', 'ms', seconds, [
      { label: 'send p99', values: call('send', 'p99') }, { label: 'receive p99', values: call('receive', 'p99') },
      { label: 'ack p99', values: call('ack', 'p99') },
      { label: 'send p50', values: call('send', 'p50'), dash: [4, 4] }, { label: 'receive p50', values: call('receive', 'p50'), dash: [4, 4] },
      { label: 'ack p50', values: call('ack', 'p50'), dash: [4, 4] },
    ], { marks: true });

    var backlog = function (from) {
      var sent = cumulative(pick('sent', from)), received = cumulative(pick('received', from));
      return sent.map(function (s, i) { return s - received[i]; });
    };
    chart('c-backlog', 'Backlog (sent − received)', 'seconds since the start', 'messages', seconds,
      withBaseline([{ label: 'backlog', values: backlog() }], 'backlog', backlog(baseSeries)), { marks: true });

    // The spectrum: x is 1/(1 - percentile), on a log scale, labelled as percentiles.
    var names = Object.keys(R.spectrum || {});
    if (names.length) {
      var grid = R.spectrum[names[0]].map(function (pv) { return pv[0]; }).filter(function (p) { return p < 100; });
      var xs = grid.map(function (p) { return 1 / (1 - p / 100); });
      var onGrid = function (points) {
        var byP = {}; (points || []).forEach(function (pv) { byP[pv[0]] = pv[1]; });
        return grid.map(function (p) { return byP[p] > 0 ? byP[p] : null; });
      };
      var spectra = names.map(function (n) { return { label: n, values: onGrid(R.spectrum[n]) }; });
      chart('c-spectrum', 'Latency by percentile', 'percentile', 'ms', xs,
        withBaseline(spectra, 'endToEnd', B && B.spectrum ? onGrid(B.spectrum.endToEnd) : []), { logX: true, logY: true,
        xSplits: function () { return [1, 10, 100, 1000, 10000, 100000]; },
        xValues: function (u, ticks) { return ticks.map(function (t) { return ['0%', '90%', '99%', '99.9%', '99.99%', '99.999%'][Math.round(Math.log10(t))] || ''; }); } });
    }
  } catch (e) {
    status.errors.push(String(e && e.message || e));
  }
  writeStatus();
})();
`;
