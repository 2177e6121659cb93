// The 3D scene: both hands (26 joints, the bones of each finger chain from the wrist, the palm),
// the head as a camera frustum with its path, the gaze ray, and the trace of one joint.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { toThreePosition, toThreeRotation } from './coords.js';

export const JOINTS = [
  'Wrist', 'Palm',
  'ThumbMetacarpalJoint', 'ThumbProximalJoint', 'ThumbDistalJoint', 'ThumbTip',
  'IndexMetacarpal', 'IndexKnuckle', 'IndexMiddleJoint', 'IndexDistalJoint', 'IndexTip',
  'MiddleMetacarpal', 'MiddleKnuckle', 'MiddleMiddleJoint', 'MiddleDistalJoint', 'MiddleTip',
  'RingMetacarpal', 'RingKnuckle', 'RingMiddleJoint', 'RingDistalJoint', 'RingTip',
  'PinkyMetacarpal', 'PinkyKnuckle', 'PinkyMiddleJoint', 'PinkyDistalJoint', 'PinkyTip',
];
const CHAINS = [
  ['Wrist', 'ThumbMetacarpalJoint', 'ThumbProximalJoint', 'ThumbDistalJoint', 'ThumbTip'],
  ['Wrist', 'IndexMetacarpal', 'IndexKnuckle', 'IndexMiddleJoint', 'IndexDistalJoint', 'IndexTip'],
  ['Wrist', 'MiddleMetacarpal', 'MiddleKnuckle', 'MiddleMiddleJoint', 'MiddleDistalJoint', 'MiddleTip'],
  ['Wrist', 'RingMetacarpal', 'RingKnuckle', 'RingMiddleJoint', 'RingDistalJoint', 'RingTip'],
  ['Wrist', 'PinkyMetacarpal', 'PinkyKnuckle', 'PinkyMiddleJoint', 'PinkyDistalJoint', 'PinkyTip'],
];
const BONES = CHAINS.flatMap((chain) => chain.slice(1).map((j, i) => [chain[i], j]));
const SIDES = ['left', 'right'];
// Also the colours of the timeline's lanes (main.js).
export const COLORS = { left: 0x3b82f6, right: 0x10b981, pinch: 0xf97316, head: 0xe11d48, gaze: 0xfacc15, ghost: 0xe5e7eb };
// How opaque the ghost (the recording compared, `view A --compare B`) is drawn over the other.
const GHOST_OPACITY = 0.35;

// The pose of an object (a hand joint, or the camera) at `t`, read from the recording in Unity's
// frame; null when the recording lacks its curves.
export function unityPose(rec, prefix, t) {
  const v = (c) => rec.value(`${prefix}.${c}`, t);
  const position = ['position.x', 'position.y', 'position.z'].map(v);
  const rotation = ['rotation.x', 'rotation.y', 'rotation.z', 'rotation.w'].map(v);
  const keyed = ['position.x', 'position.y', 'position.z'].some((c) => rec.keyed(`${prefix}.${c}`));
  if (position.some((x) => x === undefined) || !keyed) return null;
  return { position, rotation: rotation.some((x) => x === undefined) ? [0, 0, 0, 1] : rotation };
}

function softwareWebGL() {
  const gl = document.createElement('canvas').getContext('webgl2');
  const info = gl?.getExtension('WEBGL_debug_renderer_info');
  const name = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : '';
  gl?.getExtension('WEBGL_lose_context')?.loseContext();
  return /SwiftShader|llvmpipe|software/i.test(String(name));
}

function place(object, pose) {
  object.position.fromArray(toThreePosition(pose.position));
  const q = toThreeRotation(pose.rotation);
  // MRTK plays rotations as recorded; three.js needs unit quaternions (the zero one is identity).
  const n = Math.hypot(...q);
  object.quaternion.set(...(n > 0 && Number.isFinite(n) ? q.map((x) => x / n) : [0, 0, 0, 1]));
}

class Hand {
  // A ghost hand is drawn pale and translucent, whatever its state's colours.
  constructor(side, scene, ghost = false) {
    this.side = side;
    this.color = ghost ? COLORS.ghost : COLORS[side];
    this.opacity = ghost ? GHOST_OPACITY : 1;
    this.group = new THREE.Group();
    this.material = new THREE.MeshLambertMaterial({ color: this.color, transparent: true, depthWrite: !ghost });
    this.boneMaterial = new THREE.LineBasicMaterial({ color: this.color, transparent: true });
    const sphere = new THREE.SphereGeometry(0.006, 12, 8);
    this.joints = new Map();
    for (const name of JOINTS) {
      if (name === 'Palm') continue;
      const mesh = new THREE.Mesh(sphere, this.material);
      this.joints.set(name, mesh);
      this.group.add(mesh);
    }
    // The palm: a flat box in the palm joint's frame.
    this.palm = new THREE.Mesh(new THREE.BoxGeometry(0.07, 0.012, 0.08), this.material);
    this.joints.set('Palm', this.palm);
    this.group.add(this.palm);
    this.bonePositions = new Float32Array(BONES.length * 6);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(this.bonePositions, 3));
    this.bones = new THREE.LineSegments(geometry, this.boneMaterial);
    this.bones.frustumCulled = false;
    this.group.add(this.bones);
    scene.add(this.group);
  }

  update(rec, t) {
    const prefix = `hand.${this.side}`;
    const tracked = rec.value(`${prefix}.tracked`, t, true);
    const pinching = rec.value(`${prefix}.pinching`, t, true);
    let any = false;
    for (const [name, mesh] of this.joints) {
      const pose = unityPose(rec, `${prefix}.joint.${name}`, t);
      mesh.visible = pose !== null;
      if (pose) {
        place(mesh, pose);
        any = true;
      }
    }
    this.group.visible = any;
    BONES.forEach(([a, b], i) => {
      this.joints.get(a).position.toArray(this.bonePositions, i * 6);
      this.joints.get(b).position.toArray(this.bonePositions, i * 6 + 3);
    });
    this.bones.geometry.attributes.position.needsUpdate = true;
    // An untracked hand is dimmed (its joints hold their last pose); a pinching one turns orange.
    const isTracked = tracked === undefined || tracked > 0.5;
    const isPinching = pinching !== undefined && pinching > 0.5;
    this.material.opacity = (isTracked ? 1 : 0.15) * this.opacity;
    this.boneMaterial.opacity = (isTracked ? 1 : 0.15) * this.opacity;
    this.material.color.setHex(isPinching ? COLORS.pinch : this.color);
    this.boneMaterial.color.setHex(isPinching ? COLORS.pinch : this.color);
    return { present: any, tracked: isTracked, pinching: isPinching };
  }
}

export class Scene {
  constructor(canvas) {
    this.canvas = canvas;
    // Multisampling costs a software renderer (SwiftShader, as in headless browsers) most of its
    // frame rate: it is only asked of a GPU.
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: !softwareWebGL(), preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0x1f2430);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x445566, 2.5));
    const grid = new THREE.GridHelper(4, 40, 0x556070, 0x343c4a);
    this.scene.add(grid);
    this.camera = new THREE.PerspectiveCamera(50, 1, 0.01, 100);
    this.controls = new OrbitControls(this.camera, canvas);
    this.quiet = false;
    this.controls.addEventListener('change', () => this.quiet || this.render());
    this.hands = SIDES.map((s) => new Hand(s, this.scene));

    // The head: a small perspective camera drawn as its frustum.
    this.head = new THREE.PerspectiveCamera(40, 16 / 9, 0.03, 0.15);
    this.headHelper = new THREE.CameraHelper(this.head);
    this.headHelper.setColors(
      new THREE.Color(COLORS.head), new THREE.Color(COLORS.head), new THREE.Color(COLORS.head),
      new THREE.Color(COLORS.head), new THREE.Color(COLORS.head));
    this.scene.add(this.head, this.headHelper);
    this.headPath = this.line(COLORS.head, 0.5);
    this.trace = this.line(0xffffff, 0.8);

    this.gazeGeometry = new THREE.BufferGeometry();
    this.gazeGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3));
    this.gaze = new THREE.Line(this.gazeGeometry, new THREE.LineBasicMaterial({ color: COLORS.gaze }));
    this.gaze.frustumCulled = false;
    this.scene.add(this.gaze);

    this.follow = false;
    this.rec = null;
    // The recording compared (`view A --compare B`), drawn as a ghost at the same times.
    this.ghost = null;
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement);
    this.resize();
  }

  line(color, opacity) {
    const l = new THREE.Line(new THREE.BufferGeometry(),
      new THREE.LineBasicMaterial({ color, transparent: true, opacity }));
    l.frustumCulled = false;
    this.scene.add(l);
    return l;
  }

  resize() {
    const { clientWidth: w, clientHeight: h } = this.canvas.parentElement;
    if (w === 0 || h === 0) return;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  // A polyline through the positions of `prefix` over the whole recording (at most ~4000 points).
  pathOf(prefix) {
    const rec = this.rec;
    const xs = rec.series(`${prefix}.position.x`);
    const ys = rec.series(`${prefix}.position.y`);
    const zs = rec.series(`${prefix}.position.z`);
    const step = Math.max(1, Math.ceil(rec.rows / 4000));
    const points = [];
    for (let i = 0; i < rec.rows; i += step) points.push(...toThreePosition([xs[i], ys[i], zs[i]]));
    return new Float32Array(points);
  }

  setLine(line, points) {
    line.geometry.dispose();
    line.geometry = new THREE.BufferGeometry();
    line.geometry.setAttribute('position', new THREE.BufferAttribute(points, 3));
  }

  load(rec) {
    this.rec = rec;
    const hasHead = rec.has('camera.position.x');
    this.setLine(this.headPath, hasHead ? this.pathOf('camera') : new Float32Array());
    this.setTrace(null);
  }

  // Draws `rec` as a ghost over the recording shown: its hands and head, pale and translucent.
  loadGhost(rec) {
    if (!this.ghost) {
      const head = new THREE.PerspectiveCamera(40, 16 / 9, 0.03, 0.15);
      const helper = new THREE.CameraHelper(head);
      const c = new THREE.Color(COLORS.ghost);
      helper.setColors(c, c, c, c, c);
      helper.material.transparent = true;
      helper.material.opacity = GHOST_OPACITY;
      this.scene.add(head, helper);
      this.ghost = { hands: SIDES.map((side) => new Hand(side, this.scene, true)), head, helper, rec: null, shown: true };
    }
    this.ghost.rec = rec;
  }

  // Shows or hides the ghost (it belongs to the recording it was compared with).
  showGhost(shown) {
    if (this.ghost) this.ghost.shown = shown;
  }

  updateGhost(t) {
    const g = this.ghost;
    if (!g) return null;
    const hands = g.hands.map((h) => (g.shown ? h.update(g.rec, t).present : false));
    g.hands.forEach((h) => { h.group.visible = h.group.visible && g.shown; });
    const head = g.shown ? unityPose(g.rec, 'camera', t) : null;
    g.head.visible = g.helper.visible = head !== null;
    if (head) {
      place(g.head, head);
      g.head.updateMatrixWorld();
      g.helper.update();
    }
    return { hands, head: head !== null };
  }

  setTrace(prefix) {
    const ok = prefix && this.rec && this.rec.has(`${prefix}.position.x`);
    this.setLine(this.trace, ok ? this.pathOf(prefix) : new Float32Array());
    this.render();
  }

  // Frames everything the recording shows at its start: head and hands.
  resetView(draw = true) {
    const box = new THREE.Box3();
    for (const line of [this.headPath, this.trace]) {
      line.geometry.computeBoundingBox();
      if (line.geometry.boundingBox && !line.geometry.boundingBox.isEmpty()) {
        box.union(line.geometry.boundingBox);
      }
    }
    for (const h of this.hands) if (h.group.visible) box.expandByObject(h.group);
    if (this.head.visible) box.expandByPoint(this.head.position);
    const center = box.isEmpty() ? new THREE.Vector3(0, 1.5, 0) : box.getCenter(new THREE.Vector3());
    const size = box.isEmpty() ? 1 : Math.max(0.6, box.getSize(new THREE.Vector3()).length());
    this.controls.target.copy(center);
    this.camera.position.copy(center).add(new THREE.Vector3(size * 0.6, size * 0.45, size * 0.9));
    this.quiet = !draw;
    this.controls.update();
    this.quiet = false;
    if (draw) this.render();
  }

  // Poses everything at `t` (and draws it unless told not to); returns what the HUD shows.
  update(t, draw = true) {
    const rec = this.rec;
    if (!rec) return null;
    const hands = this.hands.map((h) => h.update(rec, t));
    const head = unityPose(rec, 'camera', t);
    this.head.visible = this.headHelper.visible = head !== null;
    if (head) {
      const before = this.head.position.clone();
      place(this.head, head);
      this.head.updateMatrixWorld();
      this.headHelper.update();
      if (this.follow) {
        const moved = this.head.position.clone().sub(before);
        this.camera.position.add(moved);
        this.controls.target.add(moved);
        this.controls.update();
      }
    }
    const g = ['origin.x', 'origin.y', 'origin.z', 'direction.x', 'direction.y', 'direction.z']
      .map((c) => rec.value(`gaze.${c}`, t));
    this.gaze.visible = !g.some((x) => x === undefined);
    if (this.gaze.visible) {
      const o = toThreePosition(g.slice(0, 3));
      const d = toThreePosition(g.slice(3));
      const n = Math.hypot(...d) || 1;
      const far = o.map((x, i) => x + (d[i] / n) * 2);
      this.gazeGeometry.attributes.position.array.set([...o, ...far]);
      this.gazeGeometry.attributes.position.needsUpdate = true;
    }
    const ghost = this.updateGhost(t);
    if (draw) this.render();
    return { hands, head: head !== null, gaze: this.gaze.visible, ghost };
  }

  render() {
    this.renderer.render(this.scene, this.camera);
  }

  screenOf(prefix) {
    const object = this.objectOf(prefix);
    if (!object || !object.visible) return null;
    const p = object.getWorldPosition(new THREE.Vector3()).project(this.camera);
    const { width, height } = this.renderer.domElement;
    return [((p.x + 1) / 2) * width, ((1 - p.y) / 2) * height];
  }

  // The object drawn for `prefix` (`camera` or `hand.SIDE.joint.NAME`), for tests.
  objectOf(prefix) {
    if (prefix === 'camera') return this.head;
    const m = /^hand\.(left|right)\.joint\.(\w+)$/.exec(prefix);
    if (!m) return null;
    return this.hands[SIDES.indexOf(m[1])].joints.get(m[2]) ?? null;
  }
}
