// A recording as the server sends it: a JSON description and float32 frames, row after row, each
// row its time then one value per curve of description.curves (resampled by the library).

export class Recording {
  // `rows`: how many rows of `frames` have arrived (all by default); see setLoaded.
  constructor(description, frames, rows = undefined) {
    this.description = description;
    this.curves = description.curves;
    this.columns = this.curves.length + 1;
    this.frames = frames;
    this.total = Math.floor(frames.length / this.columns);
    this.rate = description.rate;
    this.start = description.start ?? 0;
    this.setLoaded(rows ?? this.total);
    this.column = new Map(this.curves.map((p, i) => [p, i + 1]));
    this.keys = new Map(this.curves.map((p, i) => [p, description.keys?.[i] ?? 1]));
    this.markers = description.markers ?? [];
    // The pinches and fixations of the timeline (`inputanim metrics --events`); null when the
    // recording was not measured (description.metrics_note says why).
    this.events = description.events ?? null;
  }

  // Rows arrive in order: the first ones play while the rest are still on their way.
  setLoaded(rows) {
    this.rows = rows;
    if (rows > 0) this.start = this.time(0);
    this.end = rows > 0 ? this.time(rows - 1) : this.start;
  }

  complete() {
    return this.rows === this.total;
  }

  // The last row's time once every row has arrived.
  finalEnd() {
    return this.start + Math.max(0, this.total - 1) / this.rate;
  }

  has(path) {
    return this.column.has(path);
  }

  // Whether the curve is in the file and has keys.
  keyed(path) {
    return (this.keys.get(path) ?? 0) > 0;
  }

  time(row) {
    return this.frames[row * this.columns];
  }

  // The row at or before `t` and the fraction of the way to the next one. Times compare as
  // float32, as the library evaluates them: a row's time written as its shortest decimal (what
  // `inputanim sample` prints) is that row, not a hair before it.
  locate(t) {
    if (this.rows === 0) return [0, 0];
    const tf = Math.fround(t);
    let i = Math.floor((tf - this.start) * this.rate);
    i = Math.min(Math.max(i, 0), this.rows - 1);
    // Row times are float(start + i / rate): step to the exact row when rounding disagrees.
    while (i + 1 < this.rows && this.time(i + 1) <= tf) i++;
    while (i > 0 && this.time(i) > tf) i--;
    if (i + 1 >= this.rows || tf <= this.time(i)) return [i, 0];
    return [i, (tf - this.time(i)) / (this.time(i + 1) - this.time(i))];
  }

  // A curve's value at `t`: at a row's time exactly the library's value there; between rows
  // interpolated linearly, or the earlier row's for a state (`step`). undefined when absent.
  value(path, t, step = false) {
    const c = this.column.get(path);
    if (c === undefined || this.rows === 0) return undefined;
    const [i, f] = this.locate(t);
    const a = this.frames[i * this.columns + c];
    if (f === 0 || step) return a;
    const b = this.frames[(i + 1) * this.columns + c];
    return a + (b - a) * f;
  }

  // One curve over every row (for plots and traces).
  series(path) {
    return this.columnValues(this.column.get(path));
  }

  times() {
    return this.columnValues(0);
  }

  columnValues(c) {
    const out = new Float64Array(this.rows);
    for (let i = 0; i < this.rows; i++) out[i] = this.frames[i * this.columns + c];
    return out;
  }

  matching(glob) {
    const re = globRegExp(glob);
    return this.curves.filter((p) => re.test(p));
  }
}

// The library's globs (inputanim::path_matches): `*` within one name, `**` across dots, `?` one
// character but not a dot; every other character stands for itself.
// tests/test_viewer_globs.cpp holds the two to the same verdicts.
export function globRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') {
      re += '[^.]*';
    } else if (c === '?') {
      re += '[^.]';
    } else {
      re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

// Reads the answer to POST /view: a little-endian uint32 length, the description, zero padding to
// a multiple of four, then the frames.
export function parseBundle(buffer) {
  const view = new DataView(buffer);
  const length = view.getUint32(0, true);
  const description = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, length)));
  const start = Math.ceil((4 + length) / 4) * 4;
  return new Recording(description, littleEndianFloats(buffer, start));
}

export function littleEndianFloats(buffer, offset = 0) {
  const count = Math.floor((buffer.byteLength - offset) / 4);
  const littleHost = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  if (littleHost) return new Float32Array(buffer, offset, count);
  const view = new DataView(buffer, offset);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
