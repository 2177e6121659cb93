// The viewer page: loads a recording (from `inputanim view`'s list, or an upload), and ties the
// scene, the timeline, the plots and the validation panel to one current time.
import { Quaternion, Vector3 } from 'three';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { Recording, parseBundle, littleEndianFloats } from './data.js';
import { Scene, JOINTS, COLORS, unityPose } from './scene.js';
import { toThreePosition, toThreeRotation } from './coords.js';

const $ = (id) => document.getElementById(id);
const state = { rec: null, time: 0, playing: false, speed: 1, last: 0, firstFrameMs: null, plot: null, ticks: 0, sceneReadyMs: null, globTyped: false, compare: null, listed: null };
let scene = null;

function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

// Never a blank page: whatever fails is said in the status line.
window.addEventListener('error', (e) => setStatus(`Error: ${e.message}`, true));
window.addEventListener('unhandledrejection', (e) => setStatus(`Error: ${e.reason?.message ?? e.reason}`, true));

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  for (const c of children) e.append(c);
  return e;
}

// [label, value, name]: each value's element has the class field-NAME (the label by default).
function fields(pairs) {
  const dl = el('dl');
  for (const [k, v, name = k] of pairs) {
    if (v === null || v === undefined) continue;
    dl.append(el('dt', {}, k), el('dd', { textContent: String(v), className: `field-${name}` }));
  }
  return dl;
}

for (const name of ['left', 'right', 'gaze']) {
  document.documentElement.style.setProperty(`--${name}`, `#${COLORS[name].toString(16).padStart(6, '0')}`);
}

// The validation panel: the verdict, the error's code, offset, curve and keyframe, the warnings.
function showReport(report, note = '') {
  const box = $('report');
  box.replaceChildren();
  if (!report) return;
  const verdict = report.valid ? 'valid' : 'invalid';
  box.append(el('p', {}, el('span', { className: verdict, id: 'verdict', textContent: verdict }),
    ` ${report.path ?? ''}`));
  if (report.error) {
    const e = report.error;
    box.append(el('h3', { textContent: 'Error' }), fields([
      ['code', e.code], ['offset', e.offset], ['place', e.place], ['curve', e.curve],
      ['keyframe', e.keyframe], ['marker', e.marker], ['limit', e.limit], ['message', e.message]]));
  }
  box.append(fields([
    ['version', report.version], ['layout', report.layout], ['bytes', report.bytes],
    ['compressed', report.compressed_bytes], ['curves', report.curves],
    ['keyframes', report.keyframes], ['markers', report.markers], ['start', report.start],
    ['duration', report.duration]]));
  if (report.warnings?.length) {
    box.append(el('h3', { textContent: `Warnings (${report.warnings_found})` }),
      el('ul', { className: 'warnings' }, ...report.warnings.map((w) => el('li', {
        textContent: `${w.code} ${w.curve}${w.keyframe !== null ? ` keyframe ${w.keyframe}` : ''}: ${w.message}` }))));
  }
  if (note) box.append(el('p', { className: 'note', id: 'note', textContent: note }));
}

const seconds = (v) => `${Number(v.toFixed(3))} s`;
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// The metrics panel: per hand and for the gaze (labelled with their lanes' colours) the counts of
// the timeline's events and the tracking, or why there are none (`inputanim metrics` has all).
function showMetrics(d) {
  const box = $('metrics-summary');
  box.replaceChildren();
  const m = d?.metrics;
  if (!m) {
    box.append(el('p', { className: 'note', id: 'metrics-note', textContent: d?.metrics_note || 'No metrics.' }));
    return;
  }
  const label = (swatch, text) => el('span', {}, el('span', { className: `swatch ${swatch}` }), text);
  const pairs = [];
  for (const side of ['left', 'right']) {
    const h = m.hands[side];
    if (!h) continue;
    pairs.push([label(side, side), `${plural(h.pinches, 'pinch', 'pinches')}${h.pinches ? ` (${seconds(h.pinch_time)})` : ''}, `
      + `tracked ${Number((100 * h.coverage).toFixed(1))}%${h.gaps ? `, ${plural(h.gaps, 'gap')}` : ''}`, side]);
  }
  const g = m.gaze;
  if (g) {
    pairs.push([label('fixation', 'gaze'), `${plural(g.fixations, 'fixation')}${g.fixations ? ` (mean ${seconds(g.mean_fixation_duration)})` : ''}, `
      + `${plural(g.saccades, 'saccade')}`, 'gaze']);
  }
  pairs.push(['samples', `${m.samples} at ${m.measured_with.rate} Hz${m.nonfinite_samples ? `, ${m.nonfinite_samples} not finite` : ''}`, 'samples']);
  box.append(fields(pairs));
  if (d.metrics_note) box.append(el('p', { className: 'note', id: 'metrics-note', textContent: d.metrics_note }));
}

// ---- timeline -------------------------------------------------------------------------------

function showTime() {
  const rec = state.rec;
  const end = rec ? (rec.complete() ? rec.end : rec.finalEnd()) : 0;
  $('time').textContent = `${state.time.toFixed(3)} s / ${end.toFixed(3)} s`;
  $('scrub').value = String(state.time);
  const hud = scene?.update(state.time);
  if (hud) {
    $('hud').textContent = hud.hands.map((h, i) => `${i ? 'right' : 'left'} hand: ${!h.present ? 'absent'
      : `${h.tracked ? 'tracked' : 'not tracked'}${h.pinching ? ', pinching' : ''}`}`).join('\n') +
      `\nhead: ${hud.head ? 'yes' : 'absent'}   gaze: ${hud.gaze ? 'yes' : 'absent'}`;
  }
  moveCursor();
  if (rec && state.firstFrameMs === null && hud) state.firstFrameMs = performance.now();
}

function setTime(t) {
  const rec = state.rec;
  if (!rec) return;
  state.time = Math.min(Math.max(t, rec.start), rec.end);
  showTime();
}

function setPlaying(on) {
  state.playing = on && !!state.rec && state.rec.rows > 1;
  $('play').textContent = state.playing ? 'Pause' : 'Play';
  if (state.playing) {
    if (state.time >= state.rec.end) state.time = state.rec.start;
    state.last = performance.now();
    requestAnimationFrame(tick);
  }
}

function tick(now) {
  if (!state.playing) return;
  const dt = (now - state.last) / 1000;
  state.last = now;
  state.ticks++;
  const t = state.time + dt * state.speed;
  if (t >= state.rec.end) {
    setTime(state.rec.end);
    setPlaying(false);
    return;
  }
  setTime(t);
  requestAnimationFrame(tick);
}

function drawMarkers() {
  const box = $('markers');
  box.replaceChildren();
  const rec = state.rec;
  if (!rec) return;
  // Placed on the whole recording's span, also while its last rows are still arriving.
  const end = rec.complete() ? rec.end : rec.finalEnd();
  const span = end - rec.start || 1;
  for (const m of rec.markers) {
    const b = el('button', { type: 'button', className: 'marker', textContent: m.name, title: `${m.name} at ${m.time} s` });
    b.style.left = `${(100 * (Math.min(Math.max(m.time, rec.start), end) - rec.start)) / span}%`;
    b.addEventListener('click', () => setTime(m.time));
    box.append(b);
  }
}

// The pinches of each hand and the gaze fixations, as intervals under the slider: a click jumps to
// the event's start. A lane shows when the recording has its hand or gaze.
function drawEvents() {
  const rec = state.rec;
  const lanes = { left: $('lane-left'), right: $('lane-right'), fixation: $('lane-fixations') };
  for (const lane of Object.values(lanes)) lane.replaceChildren();
  const m = rec?.description.metrics;
  $('lanes').hidden = !rec?.events;
  if (!rec?.events) return;
  lanes.left.hidden = !m.hands.left;
  lanes.right.hidden = !m.hands.right;
  lanes.fixation.hidden = !m.gaze;
  const end = rec.complete() ? rec.end : rec.finalEnd();
  const span = end - rec.start || 1;
  const at = (t) => (100 * (Math.min(Math.max(t, rec.start), end) - rec.start)) / span;
  const add = (lane, className, label, e) => {
    const box = el('div', { className: `event ${className}`,
      title: `${label} from ${e.start} s to ${e.end} s (${seconds(e.duration)})` });
    box.style.left = `${at(e.start)}%`;
    box.style.width = `${at(e.end) - at(e.start)}%`;
    box.addEventListener('click', () => setTime(e.start));
    lane.append(box);
  };
  for (const e of rec.events.pinch) add(lanes[e.hand], `pinch ${e.hand}`, `${e.hand} pinch`, e);
  for (const e of rec.events.fixations) add(lanes.fixation, 'fixation', 'fixation', e);
}

$('play').addEventListener('click', () => setPlaying(!state.playing));
$('speed').addEventListener('change', (e) => { state.speed = Number(e.target.value); });
$('scrub').addEventListener('input', (e) => setTime(Number(e.target.value)));
document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type !== 'range') return;
  if (!state.rec) return;
  const step = e.shiftKey ? 1 : 1 / state.rec.rate;
  if (e.key === ' ') setPlaying(!state.playing);
  else if (e.key === 'ArrowRight') setTime(state.time + step);
  else if (e.key === 'ArrowLeft') setTime(state.time - step);
  else if (e.key === 'Home') setTime(state.rec.start);
  else if (e.key === 'End') setTime(state.rec.end);
  else return;
  e.preventDefault();
});

// ---- plots ----------------------------------------------------------------------------------

const PALETTE = ['#f87171', '#34d399', '#60a5fa', '#fbbf24', '#c084fc', '#f472b6', '#22d3ee', '#a3e635'];
const MAX_SERIES = 16;

function plot(glob) {
  const rec = state.rec;
  state.plot?.destroy();
  state.plot = null;
  $('plot').replaceChildren();
  if (!rec) return;
  const paths = rec.matching(glob);
  $('plot-note').textContent = paths.length === 0 ? `No curve matches ${glob}.`
    : paths.length > MAX_SERIES ? `${paths.length} curves match; the first ${MAX_SERIES} are plotted.` : '';
  const shown = paths.slice(0, MAX_SERIES);
  if (shown.length === 0 || rec.rows === 0) return;
  const width = $('plot').clientWidth || 400;
  state.plot = new uPlot({
    width, height: 260,
    scales: { x: { time: false }, y: { range: valueRange } },
    legend: { live: false },
    series: [{ label: 't (s)' }, ...shown.map((p, i) => ({ label: p, stroke: PALETTE[i % PALETTE.length], width: 1 }))],
    axes: [{ stroke: '#9ca3af', grid: { stroke: '#2b3140' } }, { stroke: '#9ca3af', grid: { stroke: '#2b3140' } }],
    cursor: { drag: { x: false, y: false } },
  }, [rec.times(), ...shown.map((p) => rec.series(p))], $('plot'));
  // A click on the plot moves the time there.
  state.plot.over.addEventListener('click', (e) => {
    setTime(state.plot.posToVal(e.offsetX, 'x'));
  });
  const cursor = el('div', { id: 'plot-cursor' });
  $('plot').append(cursor);
  moveCursor();
}

// The y range of the plotted values. Series that never change (a June 2019 recording's head
// position is 0 throughout) get a range around their value, so that their line is drawn across
// the middle of the plot rather than on its bottom edge.
function valueRange(u, min, max) {
  if (min === null || max === null) return [0, 1];
  if (min === max) {
    const pad = Math.max(Math.abs(min) * 0.1, 1);
    return [min - pad, max + pad];
  }
  return uPlot.rangeNum(min, max, 0.1, true);
}

// The glob plotted until one is typed: the first group of curves that moves (the head's
// position, else its rotation, the wrists, the gaze), so that a recording whose head position is
// constant opens on a plot that shows something.
const DEFAULT_GLOBS = ['camera.position.*', 'camera.rotation.*', 'hand.left.joint.Wrist.position.*',
  'hand.right.joint.Wrist.position.*', 'gaze.direction.*'];
function defaultGlob(rec) {
  for (const glob of DEFAULT_GLOBS) {
    const moving = rec.matching(glob).some((p) => {
      const v = rec.series(p);
      return v.some((x) => x !== v[0]);
    });
    if (moving) return glob;
  }
  return DEFAULT_GLOBS[0];
}

// The plot's cursor follows the timeline (a line over the plot: no redraw of the series).
function moveCursor() {
  const u = state.plot;
  const cursor = $('plot-cursor');
  if (!u || !cursor) return;
  const x = u.valToPos(state.time, 'x');
  const over = u.over.getBoundingClientRect();
  const box = $('plot').getBoundingClientRect();
  cursor.style.left = `${over.left - box.left + x}px`;
  cursor.style.top = `${over.top - box.top}px`;
  cursor.style.height = `${over.height}px`;
}

$('plot-form').addEventListener('submit', (e) => {
  e.preventDefault();
  state.globTyped = true;
  plot($('plot-glob').value.trim());
});

// ---- comparison (`inputanim view A --compare B`) ---------------------------------------------

// The error of the recording compared, as the server's compare() measured it on A's frames: the
// largest position error of each frame (mm) and the largest angle error (degrees), each with its
// tolerance as a dashed line; frames where nothing of a kind was compared are gaps.
function plotComparison() {
  const c = state.compare;
  $('compare-plot').replaceChildren();
  const r = c.report;
  const mm = r.position.map((v) => (v === null ? null : v * 1000));
  const width = $('compare-plot').clientWidth || 400;
  const axis = { stroke: '#9ca3af', grid: { stroke: '#2b3140' } };
  c.plot = new uPlot({
    width, height: 200,
    scales: { x: { time: false }, mm: { range: valueRange }, deg: { range: valueRange } },
    legend: { live: false },
    series: [
      { label: 't (s)' },
      { label: 'position error (mm)', scale: 'mm', stroke: PALETTE[0], width: 1 },
      { label: 'position tolerance', scale: 'mm', stroke: PALETTE[0], width: 1, dash: [6, 4] },
      { label: 'angle error (deg)', scale: 'deg', stroke: PALETTE[2], width: 1 },
      { label: 'angle tolerance', scale: 'deg', stroke: PALETTE[2], width: 1, dash: [6, 4] },
    ],
    axes: [axis, { ...axis, scale: 'mm' }, { ...axis, scale: 'deg', side: 1, grid: { show: false } }],
    cursor: { drag: { x: false, y: false } },
  }, [r.time, mm, r.time.map(() => r.tolerance.position * 1000), r.angle,
    r.time.map(() => r.tolerance.angle)], $('compare-plot'));
  c.plot.over.addEventListener('click', (e) => setTime(c.plot.posToVal(e.offsetX, 'x')));
}

// Loads the comparison when the server has one (null otherwise): B's frames for the ghost, and
// the error plot. B is the second recording listed.
// Shows `ghost` compared with the recording shown (`report`: GET /api/compare's answer, or an
// upload's): the ghost in the scene, the verdict, the error plot.
function showComparison(report, ghost, nameA, nameB) {
  state.compare?.plot?.destroy();
  state.compare = { report, ghost, a: state.rec, plot: null };
  scene?.loadGhost(ghost);
  scene?.showGhost(true);
  $('comparison').hidden = false;
  const first = report.first_exceeded;
  const unit = (kind, v) => (kind === 'position' ? `${(v * 1000).toFixed(3)} mm` : `${v.toFixed(3)} deg`);
  $('compare-note').textContent = `${nameB} drawn pale over ${nameA}. ` + (report.same
    ? 'Same within tolerance.'
    : first ? `First past its tolerance: ${first.name} at ${first.time.toFixed(3)} s by ${unit(first.kind, first.error)}.`
      : 'They differ (tracking, pinches or markers).');
  plotComparison();
  showTime();
}

// Loads the comparison when the server has one (null otherwise): B's frames for the ghost, and
// the error plot. B is the second recording listed.
async function loadComparison(list) {
  const response = await fetch('/api/compare');
  if (!response.ok) throw new Error(`comparison: HTTP ${response.status}`);
  const report = await response.json();
  if (!report || list.length < 2) return;
  const description = await (await fetch(list[1].description)).json();
  const frames = await fetch(description.frames_url);
  if (!frames.ok) throw new Error(`frames of ${list[1].name}: HTTP ${frames.status}`);
  const ghost = new Recording(description, littleEndianFloats(await frames.arrayBuffer()));
  showComparison(report, ghost, list[0].name, list[1].name);
}

// A file uploaded to be compared with the listed recording shown (POST /view?compare=N): the
// server compares them as --compare does and sends the upload's frames with the comparison.
async function uploadToCompare(file) {
  const shown = state.listed;
  if (!shown) return;
  setStatus(`Comparing ${file.name} with ${shown.name}…`);
  const query = `name=${encodeURIComponent(file.name)}&compare=${shown.index}`;
  const response = await fetch(`/view?${query}`, { method: 'POST', body: file });
  if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
    const body = await response.json();
    setStatus(`${file.name}: ${body.message ?? body.error ?? `HTTP ${response.status}`}`, true);
    return;
  }
  const ghost = parseBundle(await response.arrayBuffer());
  const d = ghost.description;
  if (!d.comparison) {
    setStatus(`${file.name}: cannot compare: ${d.comparison_error ?? 'no frames'}`, true);
    return;
  }
  showComparison(d.comparison, ghost, shown.name, file.name);
  setStatus(`${file.name} compared with ${shown.name}`);
}

// ---- loading --------------------------------------------------------------------------------

function fillTraceChoices(rec) {
  const select = $('trace');
  select.replaceChildren(el('option', { value: '', textContent: 'none' }));
  for (const side of ['left', 'right']) {
    for (const j of JOINTS) {
      const prefix = `hand.${side}.joint.${j}`;
      if (rec.has(`${prefix}.position.x`)) select.append(el('option', { value: prefix, textContent: `${side} ${j}` }));
    }
  }
}

$('trace').addEventListener('change', (e) => scene?.setTrace(e.target.value || null));

// Shows a recording as soon as its first rows are there; finish() adds what needs all of them.
function show(rec) {
  state.rec = rec;
  // The ghost belongs to the recording it was compared with.
  scene?.showGhost(!state.compare || state.compare.a === rec);
  setPlaying(false);
  const d = rec.description;
  showReport(d.report, [d.note, d.omitted?.length ? `Left out: ${d.omitted.join(', ')}` : ''].filter(Boolean).join(' — '));
  $('scrub').min = String(rec.start);
  $('scrub').max = String(rec.complete() ? rec.end : rec.finalEnd());
  $('scrub').step = String(1 / rec.rate);
  state.time = rec.start;
  if (scene) {
    // Posed, framed, then drawn once (by showTime): a software renderer draws slowly.
    scene.load(rec);
    scene.update(state.time, false);
    scene.resetView(false);
  }
  showTime();
  // After the first frame: a long recording has thousands of events to lay out.
  drawMarkers();
  drawEvents();
  showMetrics(d);
  fillTraceChoices(rec);
}

function finish(rec) {
  if (state.rec !== rec) return;
  $('scrub').max = String(rec.end);
  drawMarkers();
  drawEvents();
  scene?.load(rec);
  scene?.setTrace($('trace').value || null);
  showTime();
  if (!state.globTyped) $('plot-glob').value = defaultGlob(rec);
  plot($('plot-glob').value.trim());
  const d = rec.description;
  setStatus(`${d.name}: ${rec.rows} frames at ${Number(d.rate.toFixed(3))} Hz, ${rec.curves.length} curves`);
}

// The frames of a listed recording, streamed: the first frame is drawn from the first rows.
// The "Export glTF" link: the server's export of a listed recording (an upload is not kept).
function showExport(entry) {
  const link = $('export');
  link.hidden = !entry;
  if (!entry) return;
  link.href = `${entry.description}/export.glb`;
  link.download = `${entry.name.replace(/^.*\//, '').replace(/\.bin(\.gz)?$/, '')}.glb`;
}

async function loadListed(entry) {
  state.listed = entry;
  $('compare-pick').hidden = false;
  setStatus(`Loading ${entry.name}…`);
  showExport(entry);
  const description = await (await fetch(entry.description)).json();
  const response = await fetch(description.frames_url);
  if (!response.ok) throw new Error(`frames: HTTP ${response.status}`);
  const littleHost = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  if (!littleHost || !response.body) {
    const rec = new Recording(description, littleEndianFloats(await response.arrayBuffer()));
    show(rec);
    finish(rec);
    return;
  }
  const rowBytes = (description.curves.length + 1) * 4;
  const buffer = new ArrayBuffer(description.frames * rowBytes);
  const bytes = new Uint8Array(buffer);
  const rec = new Recording(description, new Float32Array(buffer), 0);
  const reader = response.body.getReader();
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (got + value.length > bytes.length) throw new Error('frames: more bytes than described');
    bytes.set(value, got);
    got += value.length;
    rec.setLoaded(Math.floor(got / rowBytes));
    if (state.rec !== rec && rec.rows > 0) show(rec);
    else if (state.rec === rec) setStatus(`Loading ${entry.name}: ${Math.round((100 * got) / bytes.length)}%`);
  }
  if (got !== bytes.length) throw new Error(`frames: ${got} bytes of ${bytes.length}`);
  if (state.rec !== rec) show(rec);
  finish(rec);
}

// Uploads `file` to be played: a recording, or the recording `member` of an archive sent with the
// Content-Type `archive`.
async function upload(file, member, archive) {
  // An upload is not kept by the server: nothing can be compared with it there.
  state.listed = null;
  $('compare-pick').hidden = true;
  setStatus(`Uploading ${member ? `${file.name}/${member}` : file.name}…`);
  setPlaying(false);
  const query = `name=${encodeURIComponent(file.name)}${member ? `&member=${encodeURIComponent(member)}` : ''}`;
  const headers = archive ? { 'Content-Type': archive } : {};
  const response = await fetch(`/view?${query}`, { method: 'POST', body: file, headers });
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('application/json')) {
    // Refused before it could be read (too large, a malformed request): the report or the reason.
    const body = await response.json();
    if (body.error === 'member_required' && !member) {
      await pickMember(file, 'application/octet-stream');
      return;
    }
    state.rec = null;
    drawMarkers();
    drawEvents();
    showMetrics(null);
    if (body.valid !== undefined) showReport(body, 'The upload was refused: nothing to play.');
    else $('report').textContent = `${body.error}: ${body.message}`;
    setStatus(`${file.name}: HTTP ${response.status}`, true);
    return;
  }
  const rec = parseBundle(await response.arrayBuffer());
  show(rec);
  finish(rec);
}

// An archive uploaded: the recordings it holds, as POST /validate lists them (a JSON line each,
// and a last line naming the archive when its walk stopped early), offered to be played one by
// one; the only one is played at once.
async function pickMember(file, type) {
  setStatus(`Listing the recordings in ${file.name}…`);
  const response = await fetch(`/validate?name=${encodeURIComponent(file.name)}`,
    { method: 'POST', body: file, headers: { 'Content-Type': type } });
  const text = await response.text();
  if (!response.ok) {
    const body = JSON.parse(text);
    $('report').textContent = `${body.error}: ${body.message}`;
    setStatus(`${file.name}: HTTP ${response.status}`, true);
    return;
  }
  const lines = text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
  const members = lines.filter((line) => line.member !== undefined);
  const stopped = lines.find((line) => line.member === undefined);
  const select = $('members');
  select.replaceChildren(
    el('option', { value: '', textContent: `${members.length} recording${members.length === 1 ? '' : 's'}` }),
    ...members.map((m) => el('option', { value: m.member, textContent: m.valid ? m.member : `${m.member} (invalid)` })));
  select.parentElement.hidden = false;
  select.onchange = () => {
    if (select.value) upload(file, select.value, type).catch((err) => setStatus(`Upload failed: ${err.message}`, true));
  };
  const why = stopped ? ` (its walk stopped: ${stopped.error.code} at byte ${stopped.error.offset})` : '';
  if (members.length === 1 && !stopped) {
    select.value = members[0].member;
    await upload(file, members[0].member, type);
    return;
  }
  setStatus(members.length === 0
    ? `${file.name} holds no recording${why}.`
    : `${file.name}: pick one of its ${members.length} recordings${why}.`, members.length === 0 || !!stopped);
}

// The Content-Type of `file` when it is a tar or a zip, by its first bytes as the server tells (a
// zip's local header or end record, a tar's ustar magic), or for gzip by its name (a .tgz, which
// the server knows by this type only; else a .bin.gz); null for a recording. The server still has
// the last word: an archive this misses is answered member_required, and listed then.
async function archiveType(file) {
  const head = new Uint8Array(await file.slice(0, 512).arrayBuffer());
  const text = (from, to) => String.fromCharCode(...head.subarray(from, to));
  if (text(0, 4) === 'PK\x03\x04' || text(0, 4) === 'PK\x05\x06') return 'application/zip';
  if (text(257, 262) === 'ustar') return 'application/x-tar';
  const tgz = head[0] === 0x1f && head[1] === 0x8b && /\.(tgz|tar\.gz)$/i.test(file.name);
  return tgz ? 'application/x-tar' : null;
}

$('upload').addEventListener('change', (e) => {
  showExport(null);
  $('members').parentElement.hidden = true;
  const file = e.target.files[0];
  if (!file) return;
  archiveType(file)
    .then((type) => (type ? pickMember(file, type) : upload(file)))
    .catch((err) => setStatus(`Upload failed: ${err.message}`, true));
});
$('compare-upload').addEventListener('change', (e) => {
  const file = e.target.files[0];
  if (file) uploadToCompare(file).catch((err) => setStatus(`Comparison failed: ${err.message}`, true));
});
$('reset-view').addEventListener('click', () => scene?.resetView());
$('follow-head').addEventListener('change', (e) => { if (scene) scene.follow = e.target.checked; });

// The test hook: the state, and the pose drawn for an object at a time (Unity's values from the
// frames, and the drawn object's position and rotation in three.js's frame).
window.inputanim = {
  state: () => ({ time: state.time, playing: state.playing, speed: state.speed, loaded: !!state.rec,
    start: state.rec?.start, end: state.rec?.end, rate: state.rec?.rate, firstFrameMs: state.firstFrameMs,
    // Animation frames drawn while playing (the benchmark's frame rate), and when the 3D view
    // was ready (ms after the page opened).
    ticks: state.ticks, sceneReadyMs: state.sceneReadyMs }),
  setTime,
  poseAt(prefix, t) {
    setTime(t);
    const unity = unityPose(state.rec, prefix, t);
    const object = scene?.objectOf(prefix);
    if (!unity || !object) return null;
    return {
      time: state.time,
      unity,
      three: { position: object.position.toArray(), quaternion: object.quaternion.toArray() },
      converted: { position: toThreePosition(unity.position), quaternion: toThreeRotation(unity.rotation) },
    };
  },
  // The comparison (null without --compare): its verdict, its first exceedance, the error
  // series' labels and whether the ghost is drawn.
  comparison: () => state.compare && {
    same: state.compare.report.same,
    first: state.compare.report.first_exceeded,
    labels: state.compare.plot.series.map((x) => x.label),
    ghost: scene?.ghost ? scene.ghost.shown && scene.ghost.hands.some((h) => h.group.visible) : false,
  },
  // The plot's glob and its y range (null without a plot).
  plotted: () => state.plot && {
    glob: $('plot-glob').value, min: state.plot.scales.y.min, max: state.plot.scales.y.max,
  },
  markers: () => state.rec?.markers ?? [],
  // The description's timeline events ({pinch, fixations}; null when not measured).
  events: () => state.rec?.events ?? null,
  // The viewpoint (three.js frame): the orbit camera and the point it orbits.
  viewpoint: () => scene && { position: scene.camera.position.toArray(), target: scene.controls.target.toArray() },
  // How many points the joint trace has (0: none chosen).
  tracePoints: () => scene?.trace.geometry.attributes.position?.count ?? 0,
  // Where the object appears on the canvas, in canvas pixels.
  screenOf: (prefix) => scene?.screenOf(prefix) ?? null,
  // The direction the object looks along (a camera's -z, three.js's convention), in the scene.
  directionOf: (prefix) => scene?.objectOf(prefix)?.getWorldDirection(new Vector3()).toArray() ?? null,
  // A Unity pose in three.js's frame, and where Unity's forward (+z) then points.
  convert(position, rotation) {
    const q = new Quaternion(...toThreeRotation(rotation));
    return { position: toThreePosition(position), forward: new Vector3(0, 0, -1).applyQuaternion(q).toArray() };
  },
};

async function start() {
  // Asked for first: the list (and then the recording) travel while WebGL starts up.
  const listed = fetch('/api/recordings').then((r) => r.json());
  try {
    scene = new Scene($('scene'));
  } catch (err) {
    setStatus(`No 3D view (WebGL unavailable: ${err.message}); timeline, plots and validation still work.`, true);
  }
  state.sceneReadyMs = performance.now();
  const list = await listed;
  const select = $('recordings');
  select.replaceChildren(...list.map((r) => el('option', { value: String(r.index), textContent: r.name })));
  select.parentElement.hidden = list.length === 0;
  select.addEventListener('change', () => loadListed(list[Number(select.value)]));
  if (list.length === 0) {
    setStatus('Upload a recording (.bin or .bin.gz) to validate and play it.');
    return;
  }
  await loadListed(list[0]);
  await loadComparison(list);
}

start().catch((err) => setStatus(`Error: ${err.message}`, true));
