#!/usr/bin/env python3
"""An smdmx report opened in a real browser: Debian's headless Chromium, driven through
ChromeDriver's WebDriver protocol (JSON over HTTP, Python's standard library only).

usage: browser.py REPORT.html SCREENSHOT.png [SEARCH...]

Prints what the page shows, a line each: "ready ms N" (the page's script ready, its first
rows drawn, from the start of the navigation; and the wall time this script waited),
"memory MB N" (the browser's processes, resident), "rows N" (the report's rows), "images N
loaded M" (pictures of the rows drawn whose natural width is not 0), then, after a click on
each filter button, "show FILTER: NAME|NAME..." (the rows it leaves, in order; their count
past 50) and "time show FILTER ms N" (the filter applied again, timed in the page), "first
screen failed: NAME|..." (the rows the window shows under "failed"), "time search TEXT ms N
found M" for each SEARCH, and "time sort KEY ms N" for each column; and writes a screenshot of
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


def memory_mb(profile):
    """The memory of every process of this browser (its command line names the profile):
    their proportional set sizes summed, each page shared by N processes counted 1/N in each,
    so that the sum is what the browser holds."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if profile.encode() not in f.read():
                    continue
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return round(total / 1024)


def main():
    report, screenshot = sys.argv[1], sys.argv[2]
    search = sys.argv[3:]
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
        started = time.monotonic()
        request(port, "POST", base + "/url", {"url": "file://" + os.path.abspath(report)})
        js = lambda script: request(port, "POST", base + "/execute/sync", {"script": script, "args": []})
        # the page's script ready (its data read, the first rows drawn), then every picture of
        # the rows drawn loaded (a large report loads them from files beside it)
        for _ in range(600):
            if js("return !!(window.smdmxReport && window.smdmxReport.ready);"):
                break
            time.sleep(0.01)
        print("ready ms", round(js("return window.smdmxReport.readyAt;")), "wall ms", round((time.monotonic() - started) * 1000))
        for _ in range(200):
            if js("return document.querySelectorAll('.none.wait').length === 0 && "
                  "Array.from(document.images).every(function(i){return i.complete;});"):
                break
            time.sleep(0.05)
        print("memory MB", memory_mb(profile))
        print("rows", js("return window.smdmxReport.rows;"))
        images = js("return Array.from(document.images).map(function(i){return i.naturalWidth;});")
        print("images", len(images), "loaded", sum(1 for w in images if w > 0))
        shot = request(port, "GET", base + "/screenshot")
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot))
        timed = lambda call: js("var t=performance.now();" + call + ";return performance.now()-t;")
        for show in ("failed", "warned", "different", "expected", "only", "equal", "all"):
            button = request(port, "POST", base + "/element", {"using": "css selector", "value": "#show-" + show})
            request(port, "POST", base + f"/element/{list(button.values())[0]}/click", {})
            names = js("return window.smdmxReport.shown();")
            print(f"show {show}: " + ("|".join(names) if len(names) <= 50 else f"{len(names)} rows"))
            if show == "failed":
                print("first screen failed: " + "|".join(js("return window.smdmxReport.onScreen();")))
            print(f"time show {show} ms", round(timed(f"window.smdmxReport.show('{show}')"), 1))
        for query in search:
            ms = timed("window.smdmxReport.search(" + json.dumps(query) + ")")
            print(f"time search {query} ms", round(ms, 1), "found", js("return window.smdmxReport.shown().length;"))
        js("window.smdmxReport.search('')")
        for key in ("name", "state", "polygons", "messages", "differences"):
            print(f"time sort {key} ms", round(timed(f"window.smdmxReport.sort('{key}', -1)"), 1))
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
