#!/usr/bin/env python3
"""An smdmx report opened in a real browser: Debian's headless Chromium, driven through
ChromeDriver's WebDriver protocol (JSON over HTTP, Python's standard library only).

usage: browser.py REPORT.html SCREENSHOT.png

Prints what the page shows, a line each: "rows N" (the table's rows), "images N loaded M"
(pictures whose natural width is not 0), then, after a click on each filter button, "show
FILTER: NAME|NAME..." (the rows left visible, by their data-name), and writes a screenshot of
the page as first shown. Exit 2 when the browser cannot be driven."""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request


def request(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read().decode())["value"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    report, screenshot = sys.argv[1], sys.argv[2]
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    port = free_port()
    proc = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                if request(port, "GET", "/status").get("ready"):
                    break
            except OSError:
                pass
            time.sleep(0.05)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": browser,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000", "--allow-file-access-from-files"]}}}}
        session = request(port, "POST", "/session", caps)["sessionId"]
        base = f"/session/{session}"
        request(port, "POST", base + "/url", {"url": "file://" + os.path.abspath(report)})
        js = lambda script: request(port, "POST", base + "/execute/sync", {"script": script, "args": []})
        # every picture decoded: complete, with a natural width
        for _ in range(100):
            if js("return Array.from(document.images).every(function(i){return i.complete;});"):
                break
            time.sleep(0.05)
        print("rows", js("return document.querySelectorAll('#rows>tbody>tr').length;"))
        images = js("return Array.from(document.images).map(function(i){return i.naturalWidth;});")
        print("images", len(images), "loaded", sum(1 for w in images if w > 0))
        shot = request(port, "GET", base + "/screenshot")
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot))
        for show in ("differences", "warnings", "errors", "all"):
            button = request(port, "POST", base + "/element", {"using": "css selector", "value": "#show-" + show})
            request(port, "POST", base + f"/element/{list(button.values())[0]}/click", {})
            names = js("return Array.from(document.querySelectorAll('#rows>tbody>tr'))"
                       ".filter(function(r){return !r.hidden && r.offsetParent !== null;})"
                       ".map(function(r){return r.dataset.name;});")
            print(f"show {show}: " + "|".join(names))
        request(port, "DELETE", base)
    except (OSError, KeyError, ValueError) as e:
        print(f"browser.py: cannot drive the browser: {e}", file=sys.stderr)
        return 2
    finally:
        proc.terminate()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
