"""The browser viewer in a real browser: headless Chromium driven by Selenium, against `inputanim
view` and `inputanim serve` on loopback. Run by ctest (tests/browser.cmake); exits 77 (skipped)
when Chromium, its driver or Selenium is absent, or the page was not built.

    /usr/bin/python3 tests/browser/viewer_test.py --cli build/tools/inputanim --out DIR
"""
import argparse
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

SKIP = 77
ARGS = None


def skip(reason):
    print(f"SKIPPED: {reason}")
    sys.exit(SKIP)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    if __name__ == "__main__":
        skip("Selenium is not installed (Debian: apt-get install python3-selenium)")
    raise


class Server:
    """`inputanim ARGS --listen 127.0.0.1:0`; reads the page's URL from its second line."""

    def __init__(self, args):
        self.process = subprocess.Popen([ARGS.cli, *args, "--listen", "127.0.0.1:0"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = self.process.stdout.readline()
        second = self.process.stdout.readline()
        if not first.startswith("listening on ") or not second.startswith("viewer at "):
            self.stop()
            raise AssertionError(f"unexpected banner: {first!r} {second!r} {self.process.stderr.read()}")
        self.url = second.split(" ", 2)[2].strip()

    def stop(self):
        self.process.stdout.close()
        self.process.stderr.close()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def run(*args):
    return subprocess.run([ARGS.cli, *args], check=False, capture_output=True, text=True)


def chromium(extra=()):
    options = Options()
    for a in ["--headless=new", "--no-sandbox", "--use-angle=swiftshader",
              "--enable-unsafe-swiftshader", "--window-size=1280,800", "--disable-gpu-sandbox",
              "--disable-dev-shm-usage", *extra]:
        options.add_argument(a)
    options.binary_location = ARGS.chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(ARGS.chromedriver), options=options)


# Reads the 3D canvas's pixels (it keeps its drawing buffer) and summarises them: how many differ
# from the background colour, and, against a saved copy, where the pixels changed.
PIXELS_JS = """
const c = document.getElementById('scene');
const copy = document.createElement('canvas');
copy.width = c.width; copy.height = c.height;
const g = copy.getContext('2d');
g.drawImage(c, 0, 0);
const d = g.getImageData(0, 0, c.width, c.height).data;
const bg = [d[0], d[1], d[2]];
let differentFromBackground = 0;
for (let i = 0; i < d.length; i += 4) {
  if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 30) differentFromBackground++;
}
const before = window.__savedPixels;
let changed = 0, inBox = 0;
const box = arguments[0];
if (before && before.length === d.length) {
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - before[i]) + Math.abs(d[i + 1] - before[i + 1]) + Math.abs(d[i + 2] - before[i + 2]) > 30) {
      changed++;
      const p = i / 4, x = p % c.width, y = Math.floor(p / c.width);
      if (box && x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3]) inBox++;
    }
  }
}
window.__savedPixels = d;
return {width: c.width, height: c.height, differentFromBackground, changed, inBox};
"""

# The canvas pixel where the object drawn for a prefix appears.
PROJECT_JS = """
const p = window.inputanim.screenOf(arguments[0]);
return p;
"""


def severe_logs(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def wait_loaded(driver, timeout=30):
    WebDriverWait(driver, timeout).until(
        lambda d: d.execute_script("return window.inputanim && window.inputanim.state().loaded"))


def quat_rotate(q, v):
    """v rotated by the unit quaternion q = (x, y, z, w) (the same algebra in either handedness)."""
    x, y, z, w = q
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    vx, vy, vz = v
    # t = 2 * cross(q.xyz, v); v' = v + w * t + cross(q.xyz, t)
    tx, ty, tz = 2 * (y * vz - z * vy), 2 * (z * vx - x * vz), 2 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx))


class ViewCase(unittest.TestCase):
    """Tests of one `inputanim view` in one Chromium: the recordings the class writes into a
    scratch folder (view_arguments), the page loaded before the first test, everything stopped
    and removed after the last."""

    PREFIX = "inputanim-view-"
    CHROMIUM_ARGUMENTS = ()
    driver = None

    @classmethod
    def view_arguments(cls):
        """Writes the class's recordings into cls.dir; the arguments of `inputanim view`."""
        raise NotImplementedError

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix=cls.PREFIX)
        cls.view = Server(["view", *cls.view_arguments()])
        cls.driver = chromium(cls.CHROMIUM_ARGUMENTS)
        cls.driver.get(cls.view.url)
        wait_loaded(cls.driver)

    @classmethod
    def tearDownClass(cls):
        if cls.driver:
            cls.driver.quit()
        cls.view.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)


class ViewerTest(ViewCase):
    PREFIX = "inputanim-viewer-"

    @classmethod
    def view_arguments(cls):
        cls.recording = os.path.join(cls.dir, "gen.bin")
        r = run("gen", "-o", cls.recording, "--seconds", "10", "--markers", "3", "--seed", "3")
        assert r.returncode == 0, r.stderr
        return [cls.recording]

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def state(self):
        return self.js("return window.inputanim.state()")

    def screenshot(self, name):
        path = os.path.join(ARGS.out, name)
        self.driver.save_screenshot(path)
        return path

    def sample(self, glob, rate=60):
        r = run("sample", self.recording, "--rate", str(rate), "--curve", glob, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    # -- the page ------------------------------------------------------------------------------

    def test_01_loads_with_no_console_errors_and_draws(self):
        self.assertEqual(severe_logs(self.driver), [])
        s = self.state()
        self.assertAlmostEqual(s["rate"], 60)
        # The frames stream in after the first piece (`loaded`): the end grows to the whole
        # recording's (10 s) as they arrive, later on a busy machine.
        WebDriverWait(self.driver, 30).until(lambda d: self.state()["end"] > 9)
        self.js("window.inputanim.setTime(arguments[0])", 3.0)
        pixels = self.js(PIXELS_JS, None)
        # The grid, both hands, the head's frustum: far more than a few stray pixels.
        self.assertGreater(pixels["differentFromBackground"], 2000, pixels)
        self.assertIn("valid", self.driver.find_element(By.ID, "verdict").text)
        self.screenshot("viewer.png")
        # "Export glTF": the server's export of the recording on screen.
        link = self.driver.find_element(By.ID, "export")
        self.assertTrue(link.is_displayed())
        self.assertTrue(link.get_attribute("href").endswith("/api/recordings/0/export.glb"))
        magic = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0]).then((r) => r.arrayBuffer())"
            ".then((b) => done(new TextDecoder().decode(new Uint8Array(b, 0, 4))), (e) => done(String(e)));",
            link.get_attribute("href"))
        self.assertEqual(magic, "glTF")

    def test_02_screenshots_at_two_times_differ_where_the_hand_moved(self):
        joint = "hand.right.joint.IndexTip"
        self.js("window.inputanim.setTime(arguments[0])", 2.0)
        a = self.js(PROJECT_JS, joint)
        self.js(PIXELS_JS, None)
        self.screenshot("viewer-t2.png")
        self.js("window.inputanim.setTime(arguments[0])", 6.0)
        b = self.js(PROJECT_JS, joint)
        self.screenshot("viewer-t6.png")
        self.assertIsNotNone(a)
        self.assertIsNotNone(b)
        self.assertGreater(math.dist(a, b), 3, "the fingertip should have moved on screen")
        margin = 40
        box = [min(a[0], b[0]) - margin, min(a[1], b[1]) - margin,
               max(a[0], b[0]) + margin, max(a[1], b[1]) + margin]
        pixels = self.js(PIXELS_JS, box)
        self.assertGreater(pixels["changed"], 50, pixels)
        # Where the fingertip was and went, pixels changed.
        self.assertGreater(pixels["inBox"], 20, pixels)

    def test_03_pose_equals_the_librarys_evaluate(self):
        for prefix in ["hand.right.joint.IndexTip", "hand.left.joint.Wrist", "camera"]:
            table = self.sample(prefix + ".**")
            columns = table["curves"]
            for row in (table["rows"][37], table["rows"][411]):
                t = row[0]
                expect = dict(zip(columns, row[1:]))
                pose = self.js("return window.inputanim.poseAt(arguments[0], arguments[1])", prefix, t)
                self.assertIsNotNone(pose, prefix)
                self.assertEqual(pose["time"], t)
                p = [expect[f"{prefix}.position.{c}"] for c in "xyz"]
                q = [expect[f"{prefix}.rotation.{c}"] for c in "xyzw"]
                for got, want in zip(pose["unity"]["position"] + pose["unity"]["rotation"], p + q):
                    self.assertAlmostEqual(got, want, delta=1e-5, msg=f"{prefix} at {t}")
                # Drawn in three.js's right-handed frame: z mirrored.
                for got, want in zip(pose["three"]["position"], [p[0], p[1], -p[2]]):
                    self.assertAlmostEqual(got, want, delta=1e-5, msg=f"{prefix} at {t}")
                n = math.sqrt(sum(x * x for x in q))
                for got, want in zip(pose["three"]["quaternion"], [-q[0] / n, -q[1] / n, q[2] / n, q[3] / n]):
                    self.assertAlmostEqual(got, want, delta=1e-5, msg=f"{prefix} at {t}")

    def test_04_the_head_looks_where_unity_says(self):
        # Unity's camera looks along its +z; where that points, mirrored into three.js, is where
        # the drawn frustum looks.
        table = self.sample("camera.rotation.*")
        row = table["rows"][300]
        q = dict(zip(table["curves"], row[1:]))
        forward = quat_rotate([q[f"camera.rotation.{c}"] for c in "xyzw"], (0, 0, 1))
        drawn = self.js("window.inputanim.setTime(arguments[0]); return window.inputanim.directionOf('camera')", row[0])
        for got, want in zip(drawn, [forward[0], forward[1], -forward[2]]):
            self.assertAlmostEqual(got, want, delta=1e-5)
        # One pose pinned by hand: a quarter turn about y (Unity: forward becomes +x).
        pinned = self.js("return window.inputanim.convert([1, 2, 3], [0, Math.SQRT1_2, 0, Math.SQRT1_2])")
        self.assertEqual(pinned["position"], [1, 2, -3])
        for got, want in zip(pinned["forward"], [1, 0, 0]):
            self.assertAlmostEqual(got, want, delta=1e-6)

    # -- the timeline --------------------------------------------------------------------------

    def test_05_scrubbing_moves_the_time(self):
        s = self.state()
        scrub = self.driver.find_element(By.ID, "scrub")
        width = scrub.size["width"]
        # Clicking a range input sets it where clicked: a quarter width right of its centre.
        ActionChains(self.driver).move_to_element_with_offset(scrub, int(width * 0.25), 0).click().perform()
        expected = s["start"] + 0.75 * (s["end"] - s["start"])
        self.assertAlmostEqual(self.state()["time"], expected, delta=0.05 * (s["end"] - s["start"]))
        shown = self.driver.find_element(By.ID, "time").text
        self.assertTrue(shown.startswith(f"{self.state()['time']:.3f} s"), shown)
        before = self.state()["time"]
        self.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        self.assertAlmostEqual(self.state()["time"], before + 1 / 60, delta=1e-4)

    def test_06_play_and_pause(self):
        self.js("window.inputanim.setTime(arguments[0])", 1.0)
        Select(self.driver.find_element(By.ID, "speed")).select_by_value("2")
        play = self.driver.find_element(By.ID, "play")
        started = time.monotonic()
        play.click()
        self.assertTrue(self.state()["playing"])
        # Playing moves the time (a shared machine may draw few frames: wait for it).
        WebDriverWait(self.driver, 20, poll_frequency=0.05).until(
            lambda d: self.state()["time"] > 1.5)
        play.click()
        wall = time.monotonic() - started
        s = self.state()
        self.assertFalse(s["playing"])
        # At 2x: never more than twice the wall time that passed.
        self.assertLessEqual(s["time"] - 1.0, 2 * wall + 0.05, s)
        time.sleep(0.3)
        self.assertEqual(self.state()["time"], s["time"])
        # The space bar toggles too.
        self.driver.find_element(By.TAG_NAME, "body").send_keys(" ")
        self.assertTrue(self.state()["playing"])
        self.driver.find_element(By.TAG_NAME, "body").send_keys(" ")
        self.assertFalse(self.state()["playing"])
        Select(self.driver.find_element(By.ID, "speed")).select_by_value("1")

    def test_07_a_marker_click_jumps_to_it(self):
        markers = self.js("return window.inputanim.markers()")
        self.assertEqual(len(markers), 3)
        buttons = self.driver.find_elements(By.CSS_SELECTOR, "#markers .marker")
        self.assertEqual([b.get_attribute("textContent") for b in buttons], [m["name"] for m in markers])
        self.js("window.inputanim.setTime(arguments[0])", 0.0)
        buttons[1].click()
        self.assertAlmostEqual(self.state()["time"], markers[1]["time"], delta=1e-6)

    def test_08_plots_follow_a_glob(self):
        glob = self.driver.find_element(By.ID, "plot-glob")
        glob.clear()
        glob.send_keys("hand.*.joint.IndexTip.position.*", Keys.ENTER)
        labels = self.js("return [...document.querySelectorAll('#plot .u-legend th')].map(e => e.textContent)")
        self.assertEqual(len([l for l in labels if "IndexTip" in l]), 6, labels)
        self.assertEqual(severe_logs(self.driver), [])

    def test_09_trace_follow_head_reset_view_and_hand_states(self):
        Select(self.driver.find_element(By.ID, "trace")).select_by_value("hand.right.joint.IndexTip")
        self.assertGreater(self.js("return window.inputanim.tracePoints()"), 500)
        Select(self.driver.find_element(By.ID, "trace")).select_by_value("")
        self.assertEqual(self.js("return window.inputanim.tracePoints()"), 0)

        # Reset view frames the recording; an orbit drag moves the viewpoint, Reset brings it back.
        self.driver.find_element(By.ID, "reset-view").click()
        framed = self.js("return window.inputanim.viewpoint()")
        canvas = self.driver.find_element(By.ID, "scene")
        ActionChains(self.driver).move_to_element(canvas).click_and_hold().move_by_offset(120, 40).release().perform()
        self.assertNotEqual(self.js("return window.inputanim.viewpoint()")["position"], framed["position"])
        self.driver.find_element(By.ID, "reset-view").click()
        for got, want in zip(self.js("return window.inputanim.viewpoint()")["position"], framed["position"]):
            self.assertAlmostEqual(got, want, delta=1e-9)

        # Following the head, the viewpoint moves as the head does.
        self.driver.find_element(By.ID, "follow-head").click()
        a = self.js("return [window.inputanim.poseAt('camera', 2), window.inputanim.viewpoint()]")
        b = self.js("return [window.inputanim.poseAt('camera', 5), window.inputanim.viewpoint()]")
        self.driver.find_element(By.ID, "follow-head").click()
        head_moved = [y - x for x, y in zip(a[0]["three"]["position"], b[0]["three"]["position"])]
        view_moved = [y - x for x, y in zip(a[1]["position"], b[1]["position"])]
        self.assertGreater(max(map(abs, head_moved)), 1e-3)
        for got, want in zip(view_moved, head_moved):
            self.assertAlmostEqual(got, want, delta=1e-6)

        # The hand states as the library has them: the HUD says pinching when the curve is on, and
        # "not tracked" (the hand dimmed) when tracking is off.
        table = self.sample("hand.right.*")
        column = {c: i + 1 for i, c in enumerate(table["curves"])}
        seen = set()
        for row in table["rows"]:
            state = (row[column["hand.right.tracked"]] > 0.5, row[column["hand.right.pinching"]] > 0.5)
            if state in seen:
                continue
            seen.add(state)
            self.js("window.inputanim.setTime(arguments[0])", row[0])
            hud = self.driver.find_element(By.ID, "hud").text
            right = [line for line in hud.splitlines() if line.startswith("right hand")][0]
            self.assertEqual("not tracked" not in right, state[0], (row[0], hud))
            self.assertEqual("pinching" in right, state[1], (row[0], hud))
        self.assertIn((True, True), seen, "the generated recording pinches at some point")

    def test_10_the_timeline_draws_pinches_and_fixations(self):
        # What the description lists is what `inputanim metrics --events` gives.
        events = self.js("return window.inputanim.events()")
        for kind in ["pinch", "fixations"]:
            r = run("metrics", "--format", "json", "--events", kind, self.recording)
            self.assertEqual(r.returncode, 0, r.stderr)
            expected = [json.loads(line) for line in r.stdout.splitlines()]
            for e in expected:
                del e["path"]
            self.assertEqual(events[kind], expected, kind)
            self.assertGreater(len(expected), 0, kind)
        # One element per event, in its hand's lane or the fixations' lane.
        lanes = {"left": "#lane-left", "right": "#lane-right", "fixations": "#lane-fixations"}
        drawn = {k: self.driver.find_elements(By.CSS_SELECTOR, f"{lane} .event") for k, lane in lanes.items()}
        for hand in ["left", "right"]:
            self.assertEqual(len(drawn[hand]), len([e for e in events["pinch"] if e["hand"] == hand]), hand)
        self.assertEqual(len(drawn["fixations"]), len(events["fixations"]))
        # Placed on the slider's span: an event's left edge is its start.
        s = self.state()
        lane = self.driver.find_element(By.CSS_SELECTOR, lanes["fixations"]).rect
        for e, box in zip(events["fixations"], drawn["fixations"]):
            x = lane["x"] + lane["width"] * (e["start"] - s["start"]) / (s["end"] - s["start"])
            self.assertAlmostEqual(box.rect["x"], x, delta=1, msg=e)
        # A click on an event jumps to its start.
        for kind, boxes in [("left", drawn["left"]), ("right", drawn["right"]), ("fixations", drawn["fixations"])]:
            listed = events["fixations"] if kind == "fixations" else [e for e in events["pinch"] if e["hand"] == kind]
            longest = max(range(len(listed)), key=lambda i: listed[i]["duration"])
            self.js("window.inputanim.setTime(arguments[0])", s["end"])
            boxes[longest].click()
            self.assertAlmostEqual(self.state()["time"], listed[longest]["start"], delta=1e-6, msg=kind)
        # The panel counts them as the metrics do.
        metrics = json.loads(run("metrics", "--format", "json", self.recording).stdout)
        field = lambda name: self.driver.find_element(By.CSS_SELECTOR, f"#metrics-summary .field-{name}").text
        self.assertTrue(field("left").startswith(f"{metrics['hands']['left']['pinches']} pinches ("))
        self.assertTrue(field("right").startswith(f"{metrics['hands']['right']['pinches']} pinches ("))
        self.assertTrue(field("gaze").startswith(f"{metrics['gaze']['fixations']} fixations ("))
        self.assertEqual(severe_logs(self.driver), [])
        self.screenshot("viewer-timeline.png")


def june_2019(path, seconds, seed):
    """A June 2019 recording as MRTK's development branch wrote them: a v1.0 body without its
    16-byte header (FORMAT.md section 9), whose head position is 0 throughout, as in the real
    files."""
    v10 = path + ".v10"
    assert run("gen", "-o", v10, "--version", "1.0", "--seconds", str(seconds),
               "--seed", str(seed)).returncode == 0
    with open(v10, "rb") as f:
        body = bytearray(f.read()[16:])
    # camera.position.x, .y, .z are the first three curves: pre-wrap, post-wrap, count, then
    # 28-byte keys whose value and tangents (bytes 4 to 15 of each) become 0.
    offset = 0
    for _ in range(3):
        count = struct.unpack_from("<i", body, offset + 8)[0]
        for k in range(count):
            struct.pack_into("<3f", body, offset + 12 + 28 * k + 4, 0.0, 0.0, 0.0)
        offset += 12 + 28 * count
    with open(path, "wb") as f:
        f.write(body)


def move_joint(source, target, curve, after, by):
    """Copies a v1.1 compact recording with every value of one float curve (by file index) at or
    after `after` seconds moved by `by`: 19 header bytes, then each curve's 12-byte header (pre-wrap,
    post-wrap, count) and its 8-byte keys (time, value)."""
    with open(source, "rb") as f:
        data = bytearray(f.read())
    offset = 19
    for _ in range(curve):
        offset += 12 + 8 * struct.unpack_from("<i", data, offset + 8)[0]
    for k in range(struct.unpack_from("<i", data, offset + 8)[0]):
        at = offset + 12 + 8 * k
        t, v = struct.unpack_from("<2f", data, at)
        if t >= after:
            struct.pack_into("<f", data, at + 4, v + by)
    with open(target, "wb") as f:
        f.write(data)


class CompareTest(ViewCase):
    """`inputanim view A --compare B`: B's hands and head as a ghost over A's, and their error
    plotted with its tolerances, for a pair whose left index tip moved 2 mm from 3 s."""

    # hand.left.joint.IndexTip.position.x: camera (7), hand states (4), 11 joints of 7 before it.
    INDEX_TIP_X = 7 + 4 + 11 * 7

    PREFIX = "inputanim-compare-"

    @classmethod
    def view_arguments(cls):
        cls.a = os.path.join(cls.dir, "a.bin")
        cls.b = os.path.join(cls.dir, "b.bin")
        # Kept whole (--raw): a key every 1/60 s, so the change starts exactly at 3 s.
        assert run("gen", "-o", cls.a, "--seconds", "6", "--raw", "--seed", "1").returncode == 0
        move_joint(cls.a, cls.b, cls.INDEX_TIP_X, 3.0, 0.002)
        return [cls.a, "--compare", cls.b]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        WebDriverWait(cls.driver, 30).until(
            lambda d: d.execute_script("return window.inputanim.comparison()") is not None)

    def comparison(self):
        return self.driver.execute_script("return window.inputanim.comparison()")

    def test_1_the_route_serves_the_error_per_frame_from_the_library(self):
        with urllib.request.urlopen(self.view.url.rstrip("/") + "/api/compare") as r:
            report = json.load(r)
        self.assertFalse(report["same"])
        self.assertEqual(report["tolerance"], {"position": 0.001, "angle": 0.5})
        first = report["first_exceeded"]
        self.assertEqual(first["name"], "hand.left.joint.IndexTip.position")
        self.assertAlmostEqual(first["time"], 3.0, delta=1e-4)
        self.assertAlmostEqual(first["error"], 0.002, delta=1e-6)
        past = [t for t, e in zip(report["time"], report["position"])
                if e is not None and e > 0.001]
        self.assertAlmostEqual(past[0], 3.0, delta=1e-4)
        self.assertEqual(len(report["time"]), 361)
        self.assertTrue(all(a == 0 or a is None for a in report["angle"]))

    def test_2_the_page_draws_the_ghost_and_plots_the_error_with_its_tolerances(self):
        self.driver.execute_script("window.inputanim.setTime(arguments[0])", 3.5)
        c = self.comparison()
        self.assertTrue(c["ghost"], c)
        self.assertEqual(c["labels"], ["t (s)", "position error (mm)", "position tolerance",
                                       "angle error (deg)", "angle tolerance"])
        self.assertEqual(c["first"]["name"], "hand.left.joint.IndexTip.position")
        note = self.driver.find_element(By.ID, "compare-note").text
        self.assertIn("hand.left.joint.IndexTip.position at 3.000 s by 2.000 mm", note)
        self.assertTrue(self.driver.find_element(By.ID, "comparison").is_displayed())
        self.assertEqual(severe_logs(self.driver), [])
        self.driver.save_screenshot(os.path.join(ARGS.out, "viewer-compare.png"))

    def test_4_a_file_picked_on_the_page_is_compared_with_the_recording_shown(self):
        view = Server(["view", self.a])
        driver = chromium()
        try:
            driver.get(view.url)
            wait_loaded(driver)
            self.assertIsNone(driver.execute_script("return window.inputanim.comparison()"))
            self.assertTrue(driver.find_element(By.ID, "compare-pick").is_displayed())
            driver.find_element(By.ID, "compare-upload").send_keys(self.b)
            WebDriverWait(driver, 30).until(
                lambda d: d.execute_script("return window.inputanim.comparison()") is not None)
            driver.execute_script("window.inputanim.setTime(arguments[0])", 3.5)
            c = driver.execute_script("return window.inputanim.comparison()")
            self.assertFalse(c["same"])
            self.assertEqual(c["first"]["name"], "hand.left.joint.IndexTip.position")
            self.assertAlmostEqual(c["first"]["time"], 3.0, delta=1e-4)
            self.assertTrue(c["ghost"], c)
            self.assertIn("b.bin drawn pale over", driver.find_element(By.ID, "compare-note").text)
            self.assertEqual(severe_logs(driver), [])
        finally:
            driver.quit()
            view.stop()

    def test_5_compare_names_a_recording_the_server_has(self):
        with open(self.b, "rb") as f:
            body = f.read()
        request = urllib.request.Request(self.view.url.rstrip("/") + "/view?name=b.bin&compare=2",
                                         data=body, method="POST",
                                         headers={"Origin": self.view.url.rstrip("/")})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        self.assertEqual(refused.exception.code, 404)
        self.assertIn("no recording 2 to compare with", json.load(refused.exception)["message"])

    def test_3_without_compare_the_route_answers_null(self):
        view = Server(["view", self.a])
        try:
            with urllib.request.urlopen(view.url.rstrip("/") + "/api/compare") as r:
                self.assertEqual(r.status, 200)
                self.assertIsNone(json.load(r))
        finally:
            view.stop()


class June2019Test(ViewCase):
    """A June 2019 recording opens on a plot of curves that move, and a constant series is drawn
    across the middle of its plot."""

    PREFIX = "inputanim-june-"

    @classmethod
    def view_arguments(cls):
        cls.recording = os.path.join(cls.dir, "june.bin")
        june_2019(cls.recording, 6, 4)
        info = json.loads(run("info", "--format", "json", cls.recording).stdout)
        assert info["version"] == "2019-06", info
        return [cls.recording]

    def plotted(self, glob):
        WebDriverWait(self.driver, 30).until(
            lambda d: (d.execute_script("return window.inputanim.plotted()") or {}).get("glob") == glob)
        return self.driver.execute_script("return window.inputanim.plotted()")

    def test_1_the_default_plot_shows_the_head_turning_not_its_constant_position(self):
        plotted = self.plotted("camera.rotation.*")
        labels = self.driver.execute_script(
            "return [...document.querySelectorAll('#plot .u-legend th')].map(e => e.textContent)")
        self.assertEqual(len([l for l in labels if l.startswith("camera.rotation.")]), 4, labels)
        self.assertLess(plotted["min"], plotted["max"])
        self.assertEqual(severe_logs(self.driver), [])

    def test_2_a_constant_series_has_a_range_around_its_value(self):
        glob = self.driver.find_element(By.ID, "plot-glob")
        glob.clear()
        glob.send_keys("camera.position.*", Keys.ENTER)
        plotted = self.plotted("camera.position.*")
        # 0 throughout: the line lies across the middle, not on the bottom edge of a 0-100 axis.
        self.assertLess(plotted["min"], 0)
        self.assertGreater(plotted["max"], 0)
        self.assertAlmostEqual(plotted["min"], -plotted["max"])
        self.assertLessEqual(plotted["max"], 10)
        self.driver.save_screenshot(os.path.join(ARGS.out, "viewer-june-2019.png"))


class WebGLFallbackTest(ViewCase):
    """Chromium as it runs on a machine without a usable GPU: the page composited in software,
    SwiftShader drawing only the WebGL canvas (the configuration bench/viewer.py also times)."""

    PREFIX = "inputanim-fallback-"
    CHROMIUM_ARGUMENTS = ("--disable-gpu-compositing",)

    @classmethod
    def view_arguments(cls):
        cls.recording = os.path.join(cls.dir, "gen.bin")
        assert run("gen", "-o", cls.recording, "--seconds", "4", "--seed", "5").returncode == 0
        return [cls.recording]

    def test_draws_and_plays(self):
        self.driver.execute_script("window.inputanim.setTime(arguments[0])", 2.0)
        pixels = self.driver.execute_script(PIXELS_JS, None)
        self.assertGreater(pixels["differentFromBackground"], 2000, pixels)
        self.driver.find_element(By.ID, "play").click()
        WebDriverWait(self.driver, 20, poll_frequency=0.05).until(
            lambda d: d.execute_script("return window.inputanim.state().time") > 2.2)
        self.assertEqual(severe_logs(self.driver), [])
        self.driver.save_screenshot(os.path.join(ARGS.out, "viewer-webgl-fallback.png"))


class UploadTest(unittest.TestCase):
    """`inputanim serve`'s page: the upload box, valid and invalid uploads."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="inputanim-upload-")
        cls.good = os.path.join(cls.dir, "good.bin")
        assert run("gen", "-o", cls.good, "--seconds", "4", "--markers", "2").returncode == 0
        with open(cls.good, "rb") as f:
            data = bytearray(f.read())
        # v1.1 compact with every block: camera.position.x's header at byte 19, its keys at 31;
        # keyframe 1's value (byte 43) becomes NaN: non_finite there, the other curves fine.
        struct.pack_into("<f", data, 43, float("nan"))
        cls.bad = os.path.join(cls.dir, "bad.bin")
        with open(cls.bad, "wb") as f:
            f.write(data)
        cls.expected = json.loads(run("validate", "--format", "json", cls.bad).stdout)
        cls.serve = Server(["serve"])
        cls.driver = chromium()
        cls.driver.get(cls.serve.url)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.serve.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def upload(self, path):
        self.driver.find_element(By.ID, "upload").send_keys(path)

    def test_1_an_invalid_upload_shows_code_and_offset_and_plays_the_rest(self):
        self.assertEqual(self.expected["error"]["code"], "non_finite")
        self.upload(self.bad)
        wait_loaded(self.driver)
        field = lambda name: self.driver.find_element(By.CSS_SELECTOR, f"#report .field-{name}").text
        self.assertEqual(self.driver.find_element(By.ID, "verdict").text, "invalid")
        self.assertEqual(field("code"), "non_finite")
        self.assertEqual(field("offset"), str(self.expected["error"]["offset"]))
        self.assertEqual(field("curve"), "camera.position.x")
        self.assertEqual(field("keyframe"), "1")
        self.assertIn("camera.position.x", self.driver.find_element(By.ID, "note").text)
        # Its structure is whole: measured, and the panel says it was measured although invalid.
        self.assertIn("invalid", self.driver.find_element(By.ID, "metrics-note").text)
        self.assertGreater(len(self.driver.find_elements(By.CSS_SELECTOR, "#lanes .event")), 0)
        state = self.driver.execute_script("return window.inputanim.state()")
        self.assertGreater(state["end"], 3)
        self.driver.save_screenshot(os.path.join(ARGS.out, "viewer-invalid-upload.png"))

    def test_2_a_valid_upload_plays(self):
        self.upload(self.good)
        WebDriverWait(self.driver, 30).until(
            lambda d: d.find_element(By.ID, "verdict").text == "valid")
        self.driver.find_element(By.ID, "play").click()
        WebDriverWait(self.driver, 20, poll_frequency=0.05).until(
            lambda d: d.execute_script("return window.inputanim.state().time") > 0.2)
        self.assertEqual(severe_logs(self.driver), [])

    def test_3_a_file_cut_short_plays_without_lanes_and_says_why(self):
        with open(self.good, "rb") as f:
            data = f.read()
        cut = os.path.join(self.dir, "cut.bin")
        with open(cut, "wb") as f:
            f.write(data[: len(data) // 2])
        self.upload(cut)
        WebDriverWait(self.driver, 30).until(
            lambda d: "structure breaks" in d.find_element(By.ID, "metrics-summary").text)
        self.assertEqual(self.driver.execute_script("return window.inputanim.events()"), None)
        self.assertFalse(self.driver.find_element(By.ID, "lanes").is_displayed())
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "#lanes .event"), [])
        self.assertEqual(self.driver.find_element(By.ID, "verdict").text, "invalid")
        self.assertEqual(severe_logs(self.driver), [])

    def test_4_an_archive_offers_its_recordings_and_plays_the_one_picked(self):
        archive = os.path.join(self.dir, "takes.tar")
        # bsdtar is libarchive's, which the build needs; the bad take first, the good one second.
        subprocess.run(["bsdtar", "-cf", archive, "-C", self.dir, "bad.bin", "good.bin"], check=True)
        self.upload(archive)
        members = self.driver.find_element(By.ID, "members")
        WebDriverWait(self.driver, 30).until(
            lambda d: len(members.find_elements(By.TAG_NAME, "option")) == 3)
        self.assertTrue(members.is_displayed())
        options = [o.text for o in members.find_elements(By.TAG_NAME, "option")]
        self.assertEqual(options, ["2 recordings", "bad.bin (invalid)", "good.bin"])
        self.assertIn("pick one of its 2 recordings", self.driver.find_element(By.ID, "status").text)
        Select(members).select_by_value("good.bin")
        WebDriverWait(self.driver, 30).until(
            lambda d: d.find_element(By.ID, "verdict").text == "valid")
        state = self.driver.execute_script("return window.inputanim.state()")
        self.assertAlmostEqual(state["end"] - state["start"],
                               json.loads(run("info", "--format", "json", self.good).stdout)["duration"], 4)
        Select(members).select_by_value("bad.bin")
        WebDriverWait(self.driver, 30).until(
            lambda d: d.find_element(By.ID, "verdict").text == "invalid")
        field = lambda name: self.driver.find_element(By.CSS_SELECTOR, f"#report .field-{name}").text
        self.assertEqual(field("code"), "non_finite")
        self.assertEqual(field("offset"), str(self.expected["error"]["offset"]))
        self.assertEqual(severe_logs(self.driver), [])
        self.driver.save_screenshot(os.path.join(ARGS.out, "viewer-archive-upload.png"))


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "")
    ARGS, rest = parser.parse_known_args()
    if not ARGS.chromium or not ARGS.chromedriver:
        skip("Chromium and its driver are not installed (Debian: apt-get install chromium chromium-driver)")
    page = subprocess.run([ARGS.cli, "view", "/nonexistent"], capture_output=True, text=True)
    if "was not built" in page.stderr:
        skip("this inputanim was built without the viewer page (no npm)")
    os.makedirs(ARGS.out, exist_ok=True)
    result = unittest.main(argv=[sys.argv[0], *rest], exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
