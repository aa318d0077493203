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
import tempfile
import time
import urllib.error
import urllib.request


def request(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read().decode())["value"]
    except urllib.error.HTTPError as e:  # WebDriver's error, with its message
        try:
            value = json.loads(e.read().decode())["value"]
            raise OSError(f"{method} {path}: {value.get('error')}: {value.get('message', '').splitlines()[0:3]}")
        except (ValueError, KeyError, AttributeError):
            raise OSError(f"{method} {path}: HTTP {e.code}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_browser(browser, profile):
    """Chromium started here, headless, its DevTools on a port of its choosing: ChromeDriver
    then attaches to it by address (127.0.0.1), so that nothing depends on the name
    "localhost" resolving (a bare chroot has no /etc/hosts)."""
    proc = subprocess.Popen([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--window-size=1400,1000", "--allow-file-access-from-files", "--no-first-run",
                             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                             f"--user-data-dir={profile}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    active = os.path.join(profile, "DevToolsActivePort")
    for _ in range(400):
        if os.path.exists(active):
            with open(active) as f:
                port = f.readline().strip()
            if port:
                return proc, int(port)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise OSError("chromium did not start (no DevToolsActivePort)")


def main():
    report, screenshot = sys.argv[1], sys.argv[2]
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    port = free_port()
    profile = tempfile.mkdtemp(prefix="smdmx-browser.")
    procs = []
    try:
        chrome, devtools = start_browser(browser, profile)
        procs.append(chrome)
        procs.append(subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for _ in range(200):
            try:
                if request(port, "GET", "/status").get("ready"):
                    break
            except OSError:
                pass
            time.sleep(0.05)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "debuggerAddress": f"127.0.0.1:{devtools}"}}}}
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
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(profile, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
