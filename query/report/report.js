/* buildtrail report: draws the page from the JSON in <script id="data"> (query/cmd/report.c
 * writes it).  Hand-written SVG, no library, nothing fetched: docs/report.md says why.
 * Every error is written into #errors (and the console), so a test can read it in the DOM. */
'use strict';
(function () {
  var errBox = document.getElementById('errors');
  function fail(msg) {
    errBox.hidden = false;
    errBox.textContent += 'report error: ' + msg + '\n';
  }
  window.addEventListener('error', function (e) { fail(e.message); });

  var SVGNS = 'http://www.w3.org/2000/svg';
  var D, byId = {};
  // proc: [id, lane, start, end, kind, argv, cwd, exit, reads, written, parent]
  var P_ID = 0, P_LANE = 1, P_S = 2, P_E = 3, P_KIND = 4, P_ARGV = 5, P_CWD = 6, P_EXIT = 7,
      P_READS = 8, P_WROTE = 9, P_PARENT = 10;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function sv(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function secs(us) {
    var s = us / 1e6;
    return s >= 100 ? s.toFixed(0) + ' s' : s >= 1 ? s.toFixed(2) + ' s' : (us / 1e3).toFixed(1) + ' ms';
  }
  function short(s, n) { return s && s.length > n ? s.slice(0, n - 1) + '…' : (s || ''); }
  function exitText(x) { return x === null ? 'unknown' : String(x); }
  function failed(p) { return p[P_EXIT] !== null && p[P_EXIT] !== 0; }

  /* ---- the timeline ---- */
  var LANE_H = 12, LANE_GAP = 2, TOP = 18;
  var tl = { v0: 0, v1: 1, w: 1000, bars: [], svg: null, sel: null };

  function laneY(l) { return TOP + l * (LANE_H + LANE_GAP); }
  function xOf(t) { return (t - tl.v0) / (tl.v1 - tl.v0) * tl.w; }

  function buildTimeline() {
    var box = document.getElementById('timeline');
    tl.w = Math.max(600, box.clientWidth || 1200);
    tl.v0 = 0;
    tl.v1 = Math.max(D.wall, 1);
    var h = laneY(D.lanes) + 4;
    var svg = sv('svg', { width: tl.w, height: h, id: 'tl-svg' });
    tl.axis = sv('g', { 'class': 'axis' });
    svg.appendChild(tl.axis);
    if (D.lane_load) {  // the processes not drawn one by one, as each lane's load
      tl.load = sv('g', { 'class': 'lane-load' });
      svg.appendChild(tl.load);
    }
    var g = sv('g', { 'class': 'bars' });
    var cpIds = {};
    D.cp.forEach(function (s) { cpIds[s.id] = true; });
    D.procs.forEach(function (p) {
      var r = sv('rect', { 'class': 'bar k' + p[P_KIND] + (cpIds[p[P_ID]] ? ' cp' : ''),
                           'data-id': p[P_ID], y: laneY(p[P_LANE]), height: LANE_H });
      g.appendChild(r);
      tl.bars.push([r, p]);
    });
    svg.appendChild(g);
    tl.cpline = sv('polyline', { 'class': 'cpline' });
    svg.appendChild(tl.cpline);
    box.appendChild(svg);
    tl.svg = svg;
    svg.addEventListener('click', function (e) {
      var id = e.target.getAttribute && e.target.getAttribute('data-id');
      if (id) select(+id, false);
    });
    var hover = document.getElementById('hover');
    svg.addEventListener('mouseover', function (e) {
      var id = e.target.getAttribute && e.target.getAttribute('data-id'), p = id && byId[+id];
      hover.textContent = p ? '[' + p[P_ID] + '] ' + short(p[P_ARGV], 200) + ' (' + secs(p[P_E] - p[P_S]) + ')' : '\u00a0';
    });
    svg.addEventListener('wheel', function (e) {
      e.preventDefault();
      var rect = svg.getBoundingClientRect();
      var at = tl.v0 + (e.clientX - rect.left) / tl.w * (tl.v1 - tl.v0);
      var f = e.deltaY > 0 ? 1.25 : 0.8;
      var span = Math.max((tl.v1 - tl.v0) * f, 50);
      tl.v0 = at - (at - tl.v0) * span / (tl.v1 - tl.v0);
      tl.v1 = tl.v0 + span;
      draw();
    }, { passive: false });
    var drag = null;
    svg.addEventListener('mousedown', function (e) { drag = { x: e.clientX, v0: tl.v0, v1: tl.v1 }; });
    window.addEventListener('mouseup', function () { drag = null; });
    window.addEventListener('mousemove', function (e) {
      if (!drag) return;
      var d = (e.clientX - drag.x) / tl.w * (drag.v1 - drag.v0);
      tl.v0 = drag.v0 - d;
      tl.v1 = drag.v1 - d;
      draw();
    });
    svg.addEventListener('dblclick', function () { tl.v0 = 0; tl.v1 = Math.max(D.wall, 1); draw(); });
    draw();
  }

  function draw() {
    tl.bars.forEach(function (b) {
      var p = b[1], x0 = xOf(p[P_S]), x1 = xOf(p[P_E]);
      b[0].setAttribute('x', x0.toFixed(1));
      b[0].setAttribute('width', Math.max(x1 - x0, 1).toFixed(1));
    });
    // the axis: about ten ticks
    while (tl.axis.firstChild) tl.axis.removeChild(tl.axis.firstChild);
    var span = tl.v1 - tl.v0, step = Math.pow(10, Math.floor(Math.log10(span / 10)));
    if (span / step > 20) step *= 5; else if (span / step > 10) step *= 2;
    for (var t = Math.ceil(tl.v0 / step) * step; t <= tl.v1; t += step) {
      var x = xOf(t);
      tl.axis.appendChild(sv('line', { x1: x, x2: x, y1: 12, y2: laneY(D.lanes), stroke: '#eee' }));
      var lab = sv('text', { x: x + 2, y: 11, 'font-size': 10, fill: '#555' });
      lab.textContent = secs(t);
      tl.axis.appendChild(lab);
    }
    if (tl.load) {  // one path per shade of grey (four), not one element per slice
      while (tl.load.firstChild) tl.load.removeChild(tl.load.firstChild);
      var n = D.lane_load.length ? D.lane_load[0].length : 0, bw = D.wall / n, d = ['', '', '', ''];
      D.lane_load.forEach(function (row, l) {
        row.forEach(function (f, b) {
          if (f <= 0) return;
          var x0 = xOf(b * bw), x1 = xOf((b + 1) * bw);
          if (x1 < 0 || x0 > tl.w) return;
          d[Math.min(3, Math.floor(f * 4))] += 'M' + x0.toFixed(1) + ' ' + laneY(l) + 'h' +
            Math.max(x1 - x0, 1).toFixed(1) + 'v' + LANE_H + 'h' + (-Math.max(x1 - x0, 1)).toFixed(1) + 'z';
        });
      });
      d.forEach(function (path, i) {
        if (path) tl.load.appendChild(sv('path', { d: path, fill: '#777', 'fill-opacity': 0.15 + i * 0.15 }));
      });
    }
    var pts = [];
    D.cp.forEach(function (s) {
      var p = byId[s.id];
      if (!p) return;
      var y = laneY(p[P_LANE]) + LANE_H / 2;
      pts.push(xOf(s.from).toFixed(1) + ',' + y, xOf(s.to).toFixed(1) + ',' + y);
    });
    tl.cpline.setAttribute('points', pts.join(' '));
  }

  function select(id, scroll) {
    var p = byId[id];
    var box = document.getElementById('details');
    if (tl.sel) tl.sel.classList.remove('sel');
    tl.sel = null;
    if (!p) { box.textContent = 'process ' + id + ' is not drawn on its own (see the note above the timeline)'; return; }
    tl.bars.forEach(function (b) { if (b[1] === p) { tl.sel = b[0]; b[0].classList.add('sel'); } });
    var parent = p[P_PARENT] !== null ? byId[p[P_PARENT]] : null;
    box.textContent = '';
    box.appendChild(el('b', {}, '[' + p[P_ID] + '] ' + D.kinds[p[P_KIND]]));
    box.appendChild(document.createTextNode(
      '\nargv:     ' + p[P_ARGV] +
      '\ncwd:      ' + (p[P_CWD] || '?') +
      '\nexit:     ' + exitText(p[P_EXIT]) +
      '\nran:      ' + secs(p[P_S]) + ' to ' + secs(p[P_E]) + ' (' + secs(p[P_E] - p[P_S]) + ')' +
      '\nparent:   ' + (parent ? '[' + parent[P_ID] + '] ' + short(parent[P_ARGV], 120) : (p[P_PARENT] || 'none')) +
      '\nread:     ' + p[P_READS] + ' files' +
      '\nwrote:    ' + (p[P_WROTE].length ? p[P_WROTE].join('\n          ') : 'nothing') +
      '\n(buildtrail show ' + p[P_ID] + ' has everything)'));
    if (scroll) document.getElementById('timeline-sec').scrollIntoView();
    if (p[P_S] < tl.v0 || p[P_E] > tl.v1) {
      var pad = Math.max((p[P_E] - p[P_S]) * 2, (tl.v1 - tl.v0) / 10);
      tl.v0 = Math.max(0, p[P_S] - pad);
      tl.v1 = p[P_E] + pad;
      draw();
    }
  }

  function procLink(id) {
    var p = byId[id];
    var a = el('a', { 'class': 'proc', 'data-id': id },
               '[' + id + ']' + (p ? ' ' + short(p[P_ARGV], 140) : ''));
    a.addEventListener('click', function () { select(id, true); });
    return a;
  }

  function legend() {
    var box = document.getElementById('legend');
    D.kinds.forEach(function (k, i) {
      var s = el('span');
      s.appendChild(el('i', { 'class': 'k' + i }));
      s.appendChild(document.createTextNode(k));
      box.appendChild(s);
    });
    if (D.drawn < D.processes)
      document.getElementById('tl-note').textContent = 'This build has ' + D.processes +
        ' processes: the ' + D.drawn + ' longest (and every step of the critical path) are ' +
        'drawn one by one; the others as each lane\'s load (grey).';
  }

  /* Long lists are drawn a page at a time (a button draws the next): a page with tens of
   * thousands of rows takes the browser seconds to lay out. */
  var PAGE = 500;
  function paged(box, items, draw) {
    var shown = 0, more = el('button', { 'class': 'more' });
    function next() {
      var upto = Math.min(items.length, shown + PAGE);
      for (; shown < upto; shown++) draw(items[shown], shown);
      more.textContent = 'show ' + Math.min(PAGE, items.length - shown) + ' more of ' + (items.length - shown);
      more.hidden = shown >= items.length;
    }
    more.addEventListener('click', next);
    box.appendChild(more);
    next();
    return more;
  }

  /* ---- tables ---- */
  // cols: [[title, class]...]; a row: {attrs, cells: [text or Node...]}
  function row(r, cols) {
    var tr = el('tr', r.attrs || {});
    r.cells.forEach(function (c, i) {
      var td = el('td', { 'class': cols[i][1] || '' });
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      tr.appendChild(td);
    });
    return tr;
  }
  function table(cols, rows, cls) {
    var t = el('table', { 'class': 'list ' + (cls || '') });
    var tr = el('tr');
    cols.forEach(function (c) { tr.appendChild(el('th', { 'class': c[1] || '' }, c[0])); });
    t.appendChild(tr);
    rows.forEach(function (r) { t.appendChild(row(r, cols)); });
    return t;
  }

  function critical() {
    var box = document.getElementById('critical');
    var busy = 0;
    D.cp.forEach(function (s) { busy += s.to - s.from; });
    box.appendChild(el('p', {}, D.cp.length + ' steps: ' + secs(busy) + ' running and ' +
                        secs(D.wall - busy) + ' waiting of the build\'s ' + secs(D.wall) + '.'));
    var cols = [['at', 'num'], ['ran', 'num'], ['waited', 'num'], ['waited for'], ['process']];
    var t = table(cols, []);
    box.appendChild(t);
    paged(box, D.cp, function (s) {
      var why = s.why === 'start' ? 'the start' : s.why === 'parent'
        ? 'parent, after [' + s.after + ']' : 'read ' + s.file + ' by [' + s.after + ']';
      t.appendChild(row({ attrs: { 'class': 'cp-step', 'data-id': s.id },
                          cells: [secs(s.from), secs(s.to - s.from), secs(s.wait), why, procLink(s.id)] }, cols));
    });
  }

  function parallelism() {
    var box = document.getElementById('parallelism'), par = D.par, n = par.avg.length;
    var W = Math.max(600, box.clientWidth || 1200), H = 140;
    var top = Math.max(par.max, par.allowed > 0 ? par.allowed : 0, 1);
    var svg = sv('svg', { width: W, height: H + 16, id: 'par-svg' });
    var y = function (v) { return H - v / top * (H - 4); };
    var pts = ['0,' + H];
    par.avg.forEach(function (v, i) { pts.push((i / n * W).toFixed(1) + ',' + y(v).toFixed(1),
                                                ((i + 1) / n * W).toFixed(1) + ',' + y(v).toFixed(1)); });
    pts.push(W + ',' + H);
    svg.appendChild(sv('polygon', { points: pts.join(' '), fill: '#4e79a7', 'fill-opacity': 0.6 }));
    var pk = [];
    par.peak.forEach(function (v, i) { pk.push((i / n * W).toFixed(1) + ',' + y(v).toFixed(1),
                                               ((i + 1) / n * W).toFixed(1) + ',' + y(v).toFixed(1)); });
    svg.appendChild(sv('polyline', { points: pk.join(' '), fill: 'none', stroke: '#4e79a7' }));
    if (par.allowed > 0)
      svg.appendChild(sv('line', { x1: 0, x2: W, y1: y(par.allowed), y2: y(par.allowed),
                                   stroke: '#c62828', 'stroke-dasharray': '4 3' }));
    var lab = sv('text', { x: 4, y: H + 13, 'font-size': 11, fill: '#555' });
    lab.textContent = '0 to ' + secs(D.wall) + '; filled: mean working processes per slice, line: the most at once' +
      (par.allowed > 0 ? ', dashed: -j' + par.allowed : '');
    svg.appendChild(lab);
    box.appendChild(svg);
    var mean = 0;
    par.avg.forEach(function (v) { mean += v / n; });
    box.appendChild(el('p', {}, mean.toFixed(1) + ' processes working on average, ' + par.max +
      ' at most' + (par.allowed > 0 ? '; -j' + par.allowed + ' allowed' : par.allowed < 0 ? '; -j without a limit' : '') +
      '. `buildtrail critical-path` lists the stretches with one job at a time.'));
  }

  function slowest() {
    var box = document.getElementById('slowest');
    var cols = [['program'], ['total', 'num'], ['runs', 'num'], ['longest', 'num']];
    var row = function (r) { return { cells: [r[0], secs(r[1]), r[2], secs(r[3])] }; };
    box.appendChild(el('p', {}, 'By total time (build drivers and shells that only wait are left out):'));
    box.appendChild(table(cols, D.progs.slice(0, 25).map(row)));
    box.appendChild(el('p', {}, 'By number of runs:'));
    box.appendChild(table(cols, D.progs.slice().sort(function (a, b) { return b[2] - a[2]; })
                                        .slice(0, 25).map(row)));
  }

  function log() {
    var box = document.getElementById('log');
    var nf = D.log.filter(function (g) { return g[1]; }).length;
    box.appendChild(el('p', {}, D.log.length + ' groups, one job\'s output together, as ' +
      '`buildtrail log` groups it' + (nf ? '; the ' + nf + ' of failed jobs first' : '') +
      (D.log_cut ? '. (Cut: the whole log is in `buildtrail log`.)' : '.')));
    var list = el('div');
    box.appendChild(list);
    paged(box, D.log, function (g) {
      var d = el('div', { 'class': 'log-group' + (g[1] ? ' failed' : '') });
      d.appendChild(procLink(g[0]));
      if (g[1]) d.appendChild(document.createTextNode(' — failed (exit ' + exitText(byId[g[0]] ? byId[g[0]][P_EXIT] : '?') + ')'));
      d.appendChild(el('pre', {}, g[2]));
      list.appendChild(d);
    });
  }

  function products() {
    var box = document.getElementById('products');
    box.appendChild(el('p', {}, D.products_total + ' products (made by the build and still there at ' +
      'its end)' + (D.products.length < D.products_total ? ', the first ' + D.products.length + ' by path' : '') +
      '; inputs counted by role for ' + D.products_closures + ' of them (`buildtrail inputs PATH` for any).'));
    var cols = [['path'], ['written by'], ['bytes', 'num'], ['inputs']];
    var holder = el('div');
    box.appendChild(holder);
    function show(q) {
      while (holder.firstChild) holder.removeChild(holder.firstChild);
      var t = table(cols, [], 'products');
      holder.appendChild(t);
      var hits = D.products.filter(function (r) { return q === '' || r[0].toLowerCase().indexOf(q) >= 0; });
      paged(holder, hits, function (r) {
        var inputs = r[3] ? Object.keys(r[3]).map(function (k) { return r[3][k] + ' ' + k; }).join(', ') : '(not computed here)';
        if (r[4] && r[4].length) inputs += '\nsources: ' + r[4].join(' ');
        t.appendChild(row({ attrs: { 'data-path': r[0] },
                            cells: [r[0], r[1] !== null ? procLink(r[1]) : '?', r[2] >= 0 ? r[2] : '?', inputs] }, cols));
      });
    }
    show('');
    document.getElementById('product-search').addEventListener('input', function (e) {
      show(e.target.value.toLowerCase());
    });
  }

  function packages() {
    var box = document.getElementById('packages');
    if (!D.packages) {
      box.appendChild(el('p', { 'class': 'note' }, 'Not a --system trace (or no dpkg database here): ' +
        'the system trees were not traced, so the packages used are not known.'));
      return;
    }
    box.appendChild(table([['package'], ['version'], ['files read', 'num']],
      D.packages.map(function (r) { return { cells: [r[0], r[1] || '?', r[2]] }; })));
  }

  function tabs() {
    var nav = document.getElementById('tabs');
    Array.prototype.forEach.call(document.querySelectorAll('section.panel'), function (s) {
      var a = el('a', { href: '#' + s.id }, s.querySelector('h2').textContent);
      nav.appendChild(a);
      nav.appendChild(document.createTextNode(' · '));
    });
  }

  try {
    D = JSON.parse(document.getElementById('data').textContent);
    D.procs.forEach(function (p) { byId[p[P_ID]] = p; });
    tabs();
    legend();
    buildTimeline();
    critical();
    parallelism();
    slowest();
    log();
    products();
    packages();
    document.body.setAttribute('data-ready', '1');
  } catch (e) {
    fail(e && e.stack ? e.stack : String(e));
  }
})();
