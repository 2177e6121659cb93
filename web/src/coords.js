// Unity's frame is left-handed (x right, y up, z forward); three.js's is right-handed (x right,
// y up, z toward the viewer). Mirroring z maps one onto the other: a point (x, y, z) becomes
// (x, y, -z), and a rotation (a quaternion x, y, z, w) becomes (-x, -y, z, w), since the mirror
// flips the sense of rotation about the x and y axes and keeps it about z. Unity's camera looks
// along its +z; three.js's along its -z: the same direction once mirrored.

export function toThreePosition([x, y, z]) {
  return [x, y, -z];
}

export function toThreeRotation([x, y, z, w]) {
  return [-x, -y, z, w];
}
