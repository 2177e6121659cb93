# Runs inside Blender (blender -b --python blender_gltf_scene.py -- IN.glb OUT.glb OUT.json):
# imports an exported recording with Blender's glTF importer, keys changes (the head 10 cm
# higher at one frame: a motion animated in Blender; the right hand moved 5 cm, keyed once, which
# Blender writes as a channel of the hand node; the left hand turning, a hand node that moves),
# exports the scene again with Blender's own exporter, and writes Blender's world positions of
# the head, the gaze and every joint at each whole frame of the animation, with each hand's world
# scale (what says it is tracked). Driven by blender_gltf.py.
import json
import math
import sys

# Blender 3.4's glTF add-on still uses numpy.bool, which numpy 1.24 removed.
import numpy

numpy.bool = bool

import bpy  # noqa: E402

source, target, positions = sys.argv[sys.argv.index("--") + 1:]

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=source)
scene = bpy.context.scene
fps = scene.render.fps / scene.render.fps_base

# The animation's whole frames, from the actions the import made.
first, last = None, None
for action in bpy.data.actions:
    a, b = action.frame_range
    first = a if first is None else min(first, a)
    last = b if last is None else max(last, b)
frames = list(range(int(first + 0.999999), int(last) + 1))

# The edit: the head 10 cm higher (Blender's z is up) at the middle frame, keyed there.
head = bpy.data.objects["head"]
edited = frames[len(frames) // 2]
scene.frame_set(edited)
head.location[2] += 0.1
head.keyframe_insert(data_path="location", frame=edited)
right = bpy.data.objects["hand.right"]
right.location[0] += 0.05
right.keyframe_insert(data_path="location", frame=edited)
# The left hand turned 30 degrees about the vertical over the animation: a hand node that moves.
left = bpy.data.objects["hand.left"]
left.rotation_quaternion = (1, 0, 0, 0)
left.keyframe_insert(data_path="rotation_quaternion", frame=frames[0])
left.rotation_quaternion = (math.cos(math.radians(15)), 0, 0, math.sin(math.radians(15)))
left.keyframe_insert(data_path="rotation_quaternion", frame=frames[-1])

bpy.ops.export_scene.gltf(filepath=target, export_format="GLB")


def world(obj):
    t = obj.matrix_world.to_translation()
    return [t.x, t.y, t.z]


hands = {side: bpy.data.objects["hand." + side] for side in ("left", "right")}
samples = []
for frame in frames:
    scene.frame_set(frame)
    row = {"frame": frame, "head": world(head), "gaze": world(bpy.data.objects["gaze"])}
    for side, hand in hands.items():
        row["hand." + side + ".scale"] = min(hand.matrix_world.to_scale())
        for joint in hand.children:
            # Blender made the second hand's names unique: "Wrist.001".
            row["hand." + side + "." + joint.name.split(".")[0]] = world(joint)
    samples.append(row)

with open(positions, "w") as f:
    json.dump({"fps": fps, "edited": edited, "frames": samples}, f)
