#!/usr/bin/python3
"""The browser viewer's budget (docs/PERFORMANCE.md, "Viewer"): a 10-minute recording's frames
response at 60 Hz over loopback, next to a baseline measured in the same run by the same client (a
minimal server answering the same number of bytes), and, when headless Chromium and Selenium are
installed, the first frame drawn after the page opens and the playback frame rate.

Chromium runs twice. First with the flags of the browser tests (`--use-angle=swiftshader`), where
SwiftShader is Chromium's GL driver for everything, so its compositor also draws every frame of the
whole window in SwiftShader, as it would on a GPU. Then as Chromium runs on a machine without a
usable GPU (its "WebGL fallback", docs/gpu/swiftshader.md in Chromium): the page composited in
software (`--disable-gpu-compositing`) and SwiftShader drawing only the WebGL canvas.

    /usr/bin/python3 bench/viewer.py --cli build/release/tools/inputanim [--seconds 600] [--reps 7]
"""
import argparse
import http.client
import shutil
import statistics
import subprocess
import tempfile
import time
import os
import sys


def get(port, path):
    """One GET on a fresh connection: (wall seconds until the last byte, body size)."""
    start = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", port)
    c.request("GET", path)
    r = c.getresponse()
    n = 0
    while True:
        chunk = r.read(1 << 20)
        if not chunk:
            break
        n += len(chunk)
    elapsed = time.perf_counter() - start
    c.close()
    assert r.status == 200, (path, r.status)
    return elapsed, n


# The baseline: a minimal HTTP server (its own process) that answers every request with the same
# number of bytes, held ready in memory, through one sendall.
FLOOR_SERVER = r"""
import socket, sys
n = int(sys.argv[1])
payload = b"\x01" * n
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    c.recv(65536)
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % n)
    c.sendall(payload)
    c.close()
"""


def floor_server(size):
    p = subprocess.Popen([sys.executable, "-c", FLOOR_SERVER, str(size)], stdout=subprocess.PIPE,
                         text=True)
    return p, int(p.stdout.readline())


# Chromium as the browser tests run it, and as it runs on a machine without a usable GPU.
SWIFTSHADER_GL = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
WEBGL_FALLBACK = SWIFTSHADER_GL + ["--disable-gpu-compositing"]


def browser(url, flags):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        return None
    if not shutil.which("chromium") or not shutil.which("chromedriver"):
        return None
    options = Options()
    for a in ["--headless=new", "--no-sandbox", "--window-size=1280,800"] + flags:
        options.add_argument(a)
    options.binary_location = shutil.which("chromium")
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        driver.get(url)
        WebDriverWait(driver, 60).until(
            lambda d: d.execute_script("return window.inputanim && window.inputanim.state().firstFrameMs"))
        first = driver.execute_script("return window.inputanim.state().firstFrameMs")
        ready = driver.execute_script("return window.inputanim.state().sceneReadyMs")
        driver.execute_script("document.getElementById('play').click()")
        time.sleep(0.5)
        t0 = driver.execute_script("return window.inputanim.state().ticks")
        time.sleep(3)
        t1 = driver.execute_script("return window.inputanim.state().ticks")
        return first, (t1 - t0) / 3, ready
    finally:
        driver.quit()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", required=True)
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--reps", type=int, default=7)
    a = p.parse_args()
    scratch = tempfile.mkdtemp(prefix="inputanim-viewer-bench-")
    try:
        rec = os.path.join(scratch, "rec.bin")
        subprocess.run([a.cli, "gen", "-o", rec, "--seconds", str(a.seconds), "--markers", "5"],
                       check=True)
        start = time.perf_counter()
        server = subprocess.Popen([a.cli, "view", rec, "--listen", "127.0.0.1:0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        server.stdout.readline()
        url = server.stdout.readline().split(" ", 2)[2].strip()
        ready = time.perf_counter() - start
        port = int(url.rsplit(":", 1)[1].strip("/"))
        try:
            get(port, "/api/recordings/0/frames")  # warm
            frames = [get(port, "/api/recordings/0/frames") for _ in range(a.reps)]
            size = frames[0][1]
            baseline, floor_port = floor_server(size)
            try:
                get(floor_port, "/")  # warm
                floor = [get(floor_port, "/")[0] for _ in range(a.reps)]
            finally:
                baseline.terminate()
                baseline.wait()
            health = [get(port, "/healthz")[0] for _ in range(a.reps)]
            desc = [get(port, "/api/recordings/0")[0] for _ in range(a.reps)]
            page = browser(url, SWIFTSHADER_GL)
            fallback = browser(url, WEBGL_FALLBACK) if page else None
        finally:
            server.terminate()
            server.wait()
        ms = lambda xs: f"{statistics.median(xs) * 1000:.1f} ms (min {min(xs) * 1000:.1f})"
        print(f"recording: {a.seconds:g} s, {os.path.getsize(rec)} bytes; frames: {size} bytes; "
              f"{a.reps} repetitions, medians")
        print("| what | time |")
        print("|---|---|")
        print(f"| `view` start (validate, resample at 60 Hz, listen) | {ready * 1000:.0f} ms |")
        print(f"| GET frames ({size / 2**20:.1f} MiB, fresh connection) | {ms([f[0] for f in frames])} |")
        print(f"| baseline: the same bytes from a minimal server that holds them ready (Python, one sendall) | {ms(floor)} |")
        print(f"| GET description | {ms(desc)} |")
        print(f"| baseline: GET /healthz | {ms(health)} |")
        if page:
            print(f"| first frame drawn after the page opens (headless Chromium, SwiftShader) | {page[0]:.0f} ms |")
            print(f"| of which: the page's script and WebGL ready (no data needed) | {page[2]:.0f} ms |")
            print(f"| playback (both hands, head, gaze; SwiftShader as the GL driver, compositor included) | {page[1]:.0f} frames/s |")
            print(f"| first frame, Chromium's WebGL fallback (software compositing) | {fallback[0]:.0f} ms |")
            print(f"| playback, Chromium's WebGL fallback (software compositing, SwiftShader for WebGL) | {fallback[1]:.0f} frames/s |")
        else:
            print("| first frame | not measured: Chromium or Selenium is absent |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
