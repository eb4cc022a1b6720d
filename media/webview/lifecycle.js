// The Lifecycle panel. The extension sends the whole timeline model (src/shared/webviewProtocol.ts,
// built by src/core/views/timeline.ts); this script only draws it: a step lane and one lane per rank
// on a shared time axis, the key timings, the verdicts, and a history chart of past runs. All text
// goes in through textContent (log lines are untrusted), all geometry through CSSOM (the CSP allows
// no inline styles), and every segment is focusable with a label, so the panel works from the keyboard.
// @ts-check
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const app = /** @type {HTMLElement} */ (document.getElementById('app'));
  const tip = /** @type {HTMLElement} */ (document.getElementById('tip'));

  const PHASE_TITLES = { load: 'load', warmup: 'warm-up', pause: 'pause', ready: 'ready', capture: 'capture', exit: 'exit', restore: 'restore', resume: 'resume', serve: 'serve' };
  const PHASES = Object.keys(PHASE_TITLES);
  const STATE_SYMBOL = { pending: '○', running: '◌', passed: '✓', warned: '⚠', failed: '✗', skipped: '–', cancelled: '⊘' };

  /** @param {string} tag @param {string=} cls @param {string=} text */
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  /** @param {number | undefined} ms */
  function dur(ms) {
    if (ms === undefined || !isFinite(ms)) return '—';
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
    return Math.floor(ms / 60000) + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
  }
  /** @param {number} ms */
  function off(ms) {
    return '+' + (ms / 1000).toFixed(2) + ' s';
  }
  /** Tick step giving 4–8 ticks across the span. @param {number} span */
  function tickStep(span) {
    const steps = [100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 1800000, 3600000];
    for (const s of steps) if (span / s <= 8) return s;
    return steps[steps.length - 1];
  }

  // ---- tooltip: shown on hover and on keyboard focus -------------------------------------------------
  /** @param {HTMLElement} target @param {string} title @param {string[]} lines */
  function showTip(target, title, lines) {
    tip.replaceChildren(el('strong', undefined, title));
    for (const l of lines) tip.append(el('div', l.startsWith('› ') ? 'evidence' : undefined, l));
    tip.hidden = false;
    const r = target.getBoundingClientRect();
    const w = Math.min(520, window.innerWidth - 16);
    tip.style.maxWidth = w + 'px';
    tip.style.left = Math.max(8, Math.min(r.left, window.innerWidth - w - 8)) + 'px';
    tip.style.top = r.bottom + window.scrollY + 6 + 'px';
  }
  function hideTip() {
    tip.hidden = true;
  }
  /** @param {HTMLElement} node @param {string} title @param {string[]} lines */
  function withTip(node, title, lines) {
    node.addEventListener('mouseenter', () => showTip(node, title, lines));
    node.addEventListener('mouseleave', hideTip);
    node.addEventListener('focus', () => showTip(node, title, lines));
    node.addEventListener('blur', hideTip);
  }

  // ---- sections ---------------------------------------------------------------------------------------
  function header(m) {
    const h = el('header', 'run');
    const title = el('h1', undefined, 'Snapshot run ');
    title.append(el('code', undefined, m.runId));
    if (m.worker) title.append(' on ', el('code', undefined, m.worker));
    const state = m.active ? 'running' : m.outcome || 'ended';
    const badge = el('span', 'badge ' + state, m.active ? 'running…' : state);
    badge.setAttribute('role', 'status');
    title.append(' ', badge);
    h.append(title);
    const figures = el('div', 'figures');
    const fig = (label, value, cls) => {
      const f = el('div', 'figure ' + (cls || ''));
      f.append(el('div', 'value', value), el('div', 'label', label));
      return f;
    };
    const failed = m.steps.filter((s) => s.state === 'failed').length;
    const passed = m.steps.filter((s) => s.state === 'passed' || s.state === 'warned').length;
    figures.append(
      fig('restore time', dur(m.restoreMs), 'restore'),
      fig('warm-up time', dur(m.warmupMs), 'warmup'),
      fig(m.active ? 'elapsed' : 'total', dur(m.span)),
      fig('ranks', String(m.lanes.length)),
      fig('steps passed' + (failed ? ' · failed' : ''), passed + (failed ? ' · ' + failed : ''), failed ? 'bad' : ''),
    );
    h.append(figures);
    return h;
  }

  function axis(span) {
    const a = el('div', 'axis');
    a.setAttribute('aria-hidden', 'true');
    const step = tickStep(span);
    for (let t = 0; t <= span; t += step) {
      const tick = el('span', 'tick', t === 0 ? '0 s' : dur(t));
      tick.style.left = (t / span) * 100 + '%';
      a.append(tick);
    }
    return a;
  }

  function segment(key, cls, start, end, span, label, aria, tipTitle, tipLines, onEnter) {
    const s = el('div', 'seg ' + cls);
    s.dataset.key = key;
    s.style.left = (start / span) * 100 + '%';
    s.style.width = (Math.max(end - start, 0) / span) * 100 + '%';
    s.tabIndex = 0;
    s.setAttribute('role', 'button');
    s.setAttribute('aria-label', aria);
    if ((end - start) / span > 0.06) s.append(el('span', 'seg-label', label));
    withTip(s, tipTitle, tipLines);
    if (onEnter) {
      s.addEventListener('click', onEnter);
      s.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onEnter();
        }
      });
    }
    return s;
  }

  /**
   * The doer's own phases of a step (the snapshot agent's criu_dump, cuda_checkpoint …) as thin bands
   * along the bottom of its bar: back to back, ending where the step ended, each as long as the doer
   * measured it (shrunk together when they add up to more than the bar).
   */
  function subSegments(s, end, span) {
    const total = s.parts.reduce((n, p) => n + p.ms, 0);
    const room = Math.max(end - s.start, 0);
    const scale = total > room && total > 0 ? room / total : 1;
    let at = end - total * scale;
    return s.parts.map((p, i) => {
      const d = el('div', 'subseg part-' + (i % 6));
      d.style.left = (at / span) * 100 + '%';
      d.style.width = ((p.ms * scale) / span) * 100 + '%';
      at += p.ms * scale;
      d.setAttribute('role', 'img');
      d.setAttribute('aria-label', s.title + ' phase ' + p.name + ', ' + dur(p.ms));
      withTip(d, s.title + ' · ' + p.name, [dur(p.ms) + ' (as the doer measured it)']);
      return d;
    });
  }

  function lanes(m) {
    const box = el('section', 'timeline');
    box.setAttribute('aria-label', 'Timeline: the workflow steps, then one lane per rank coloured by phase');
    box.append(el('h2', undefined, 'Timeline'));
    const grid = el('div', 'lanes');
    const span = m.span;
    let segments = 0;
    // Steps lane: what the workflow did and how each step ended.
    const stepRow = el('div', 'lane steps-lane');
    stepRow.append(el('div', 'lane-label', 'steps'));
    const stepTrack = el('div', 'track');
    for (const s of m.steps) {
      if (s.start === undefined) continue;
      const end = s.end === undefined ? span : s.end;
      const ev = s.evidence.map((e) => '› ' + (e.rank ? e.rank + ': ' : '') + e.text + (e.valueMs !== undefined ? ' (' + dur(e.valueMs) + ')' : ''));
      const lines = [s.state + ' · ' + off(s.start) + ' → ' + off(end) + ' · ' + dur(s.durationMs)].concat(s.verdict ? [s.verdict] : [], ev);
      stepTrack.append(
        segment('step:' + s.name, 'step ' + s.state, s.start, end, span, STATE_SYMBOL[s.state] + ' ' + s.title, s.title + ': ' + s.state + ', ' + dur(s.durationMs) + (s.verdict ? '. ' + s.verdict : ''), s.title, lines),
      );
      segments++;
      if (s.parts && s.parts.length) stepTrack.append(...subSegments(s, end, span));
    }
    stepRow.append(stepTrack);
    grid.append(stepRow);
    for (const lane of m.lanes) {
      const row = el('div', 'lane');
      const label = el('div', 'lane-label', lane.rank);
      if (lane.errors) label.append(el('span', 'count err', ' ✗' + lane.errors));
      if (lane.warnings) label.append(el('span', 'count warn', ' ⚠' + lane.warnings));
      row.append(label);
      const track = el('div', 'track');
      track.setAttribute('role', 'group');
      track.setAttribute('aria-label', 'Rank ' + lane.rank);
      if (lane.segments.length === 0) track.append(el('span', 'no-markers', lane.lastLine ? 'no lifecycle marker yet · ' + lane.lastLine : 'no lifecycle marker yet'));
      lane.segments.forEach((seg, i) => {
        const title = PHASE_TITLES[seg.phase] || seg.phase;
        const range = off(seg.start) + ' → ' + (seg.open ? 'now' : off(seg.end));
        const who = seg.inherited ? ' (announced by main for the whole engine)' : '';
        // Enter opens the log that printed the marker: main's for an engine-wide one.
        const source = seg.inherited ? 'main' : lane.rank;
        const first = seg.inherited ? seg.lines[0].replace(/^main: /, '') : seg.lines[0];
        track.append(
          segment(
            lane.rank + ':' + i,
            'phase-' + seg.phase + (seg.open ? ' open' : '') + (seg.inherited ? ' inherited' : ''),
            seg.start,
            seg.end,
            span,
            title,
            lane.rank + ': ' + title + ' ' + range + ', ' + dur(seg.end - seg.start) + who + '. Evidence: ' + seg.lines.join('; '),
            lane.rank + ' · ' + title + who,
            [range + ' · ' + dur(seg.end - seg.start)].concat(seg.lines.map((l) => '› ' + l), ['Enter or click: open ' + source + '’s log at this line']),
            () => vscode.postMessage({ type: 'openRankLog', rank: source, line: first }),
          ),
        );
        segments++;
      });
      row.append(track);
      grid.append(row);
    }
    const axisRow = el('div', 'lane axis-row');
    axisRow.append(el('div', 'lane-label'), axis(span));
    grid.append(axisRow);
    box.append(grid, legend());
    return { node: box, segments };
  }

  function legend() {
    const l = el('div', 'legend');
    l.setAttribute('aria-label', 'Phase colours');
    for (const p of PHASES) {
      const item = el('span', 'legend-item');
      item.append(el('span', 'swatch phase-' + p), PHASE_TITLES[p]);
      l.append(item);
    }
    const hatch = el('span', 'legend-item');
    hatch.append(el('span', 'swatch phase-pause inherited'), 'hatched: announced by main for every rank');
    l.append(hatch);
    return l;
  }

  function verdicts(m) {
    const box = el('section', 'verdicts');
    box.append(el('h2', undefined, 'Steps and verdicts'));
    const table = el('table');
    const head = el('tr');
    for (const h of ['', 'step', 'time', 'verdict']) head.append(el('th', undefined, h));
    table.append(head);
    for (const s of m.steps) {
      const tr = el('tr', 'state-' + s.state);
      const sym = el('td', 'sym ' + s.state, STATE_SYMBOL[s.state]);
      sym.setAttribute('aria-label', s.state);
      tr.append(sym, el('td', undefined, s.title), el('td', 'num', s.durationMs === undefined ? '' : dur(s.durationMs)), el('td', 'verdict', s.verdict || (s.state === 'pending' ? '' : s.state)));
      table.append(tr);
    }
    box.append(table);
    return box;
  }

  const SVG = 'http://www.w3.org/2000/svg';
  /** @param {string} tag @param {Record<string, string | number>} attrs */
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, String(attrs[k]));
    return e;
  }

  function history(points) {
    const box = el('section', 'history');
    box.append(el('h2', undefined, 'History: restore and warm-up time per run'));
    const withData = points.filter((p) => p.restoreMs !== undefined || p.warmupMs !== undefined);
    if (withData.length === 0) {
      box.append(el('p', 'empty', 'No finished runs with timings yet.'));
      return { node: box, bars: 0 };
    }
    const max = Math.max(1, ...withData.map((p) => Math.max(p.restoreMs || 0, p.warmupMs || 0)));
    const W = 460, H = 210, left = 58, bottom = 34, top = 10;
    const chart = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: 'img' });
    chart.setAttribute('aria-label', withData.map((p) => 'run ' + p.runId + ': restore ' + dur(p.restoreMs) + ', warm-up ' + dur(p.warmupMs)).join('; '));
    const plotH = H - bottom - top;
    for (let i = 0; i <= 4; i++) {
      const y = top + plotH - (plotH * i) / 4;
      chart.append(svg('line', { x1: left, x2: W - 4, y1: y, y2: y, class: 'grid' }));
      const t = svg('text', { x: left - 6, y: y + 4, class: 'ylabel' });
      t.textContent = dur((max * i) / 4);
      chart.append(t);
    }
    const slot = (W - left - 8) / withData.length;
    const bw = Math.min(22, slot / 3);
    let bars = 0;
    withData.forEach((p, i) => {
      const x0 = left + i * slot + slot / 2 - bw;
      [['restore', p.restoreMs], ['warmup', p.warmupMs]].forEach(([kind, v], j) => {
        if (v === undefined) return;
        const h = (plotH * Number(v)) / max;
        const r = svg('rect', { x: x0 + j * bw, y: top + plotH - h, width: bw - 2, height: Math.max(h, 1), class: 'bar ' + kind + (p.current ? ' current' : '') });
        const title = svg('title', {});
        title.textContent = p.runId + ' — ' + (kind === 'restore' ? 'restore' : 'warm-up') + ' ' + dur(Number(v)) + ' (' + p.outcome + ')';
        r.append(title);
        chart.append(r);
        bars++;
      });
      const label = svg('text', { x: left + i * slot + slot / 2, y: H - bottom + 16, class: 'xlabel' + (p.current ? ' current' : '') });
      label.textContent = p.current ? 'this run' : new Date(p.startedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      chart.append(label);
      const o = svg('text', { x: left + i * slot + slot / 2, y: H - bottom + 28, class: 'xlabel outcome ' + p.outcome });
      o.textContent = p.outcome;
      chart.append(o);
    });
    box.append(chart);
    const key = el('div', 'legend');
    for (const [cls, name] of [['restore', 'restore time'], ['warmup', 'warm-up time']]) {
      const item = el('span', 'legend-item');
      item.append(el('span', 'swatch bar-' + cls), name);
      key.append(item);
    }
    box.append(key);
    return { node: box, bars };
  }

  // ---- keyboard: arrows move between segments (Tab order also reaches every one) -----------------------
  app.addEventListener('keydown', (e) => {
    const cur = /** @type {HTMLElement} */ (e.target);
    if (!cur.classList || !cur.classList.contains('seg')) return;
    const all = Array.from(app.querySelectorAll('.seg'));
    const rows = Array.from(app.querySelectorAll('.lane')).map((r) => Array.from(r.querySelectorAll('.seg')));
    const ri = rows.findIndex((r) => r.includes(cur));
    const ci = ri >= 0 ? rows[ri].indexOf(cur) : -1;
    let next;
    if (e.key === 'ArrowRight') next = all[all.indexOf(cur) + 1];
    else if (e.key === 'ArrowLeft') next = all[all.indexOf(cur) - 1];
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const d = e.key === 'ArrowDown' ? 1 : -1;
      for (let r = ri + d; r >= 0 && r < rows.length; r += d) {
        if (rows[r].length) {
          next = rows[r][Math.min(ci, rows[r].length - 1)];
          break;
        }
      }
    } else if (e.key === 'Escape') hideTip();
    if (next) {
      e.preventDefault();
      /** @type {HTMLElement} */ (next).focus();
    }
  });

  // ---- render ---------------------------------------------------------------------------------------
  function render(msg) {
    const m = msg.model;
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const focused = active && active.dataset ? active.dataset.key : undefined;
    hideTip();
    app.replaceChildren();
    let segments = 0, bars = 0;
    if (!m) {
      app.append(el('p', 'empty', 'No run yet. Run “Dynamo Snapshot: Run Snapshot Smoke Test” to see its lifecycle here.'));
    } else {
      app.append(header(m));
      const t = lanes(m);
      segments = t.segments;
      app.append(t.node);
    }
    const h = history(msg.history);
    bars = h.bars;
    const bottom = el('div', 'bottom');
    if (m) bottom.append(verdicts(m));
    bottom.append(h.node);
    app.append(bottom);
    // Keep keyboard focus on the same segment across live re-renders.
    if (focused) {
      const again = Array.from(app.querySelectorAll('.seg')).find((s) => /** @type {HTMLElement} */ (s).dataset.key === focused);
      if (again) /** @type {HTMLElement} */ (again).focus();
    }
    vscode.postMessage({ type: 'rendered', runId: m ? m.runId : null, lanes: m ? m.lanes.map((l) => l.rank) : [], segments, steps: m ? m.steps.length : 0, historyBars: bars });
  }

  window.addEventListener('message', (e) => {
    const msg = e.data;
    if (msg && msg.type === 'model') render(msg);
  });
  vscode.postMessage({ type: 'ready' });
})();
