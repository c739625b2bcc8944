#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol for the gallery tests (issue 28).

Python standard library only. Chromium is started with --remote-debugging-pipe: it reads
protocol messages (JSON, each ended by a NUL byte) on file descriptor 3 and writes its
answers and events on file descriptor 4, so no port and no websocket are needed.

    cdp_probe.py STEPS.json

STEPS.json: {"chromium": PATH, "width": W, "height": H, "serve": DIR (optional: serve DIR
with `python3 -m http.server` on a free port of 127.0.0.1 and make every "url" relative to
it), "steps": [...]} where each step is one of
    {"navigate": URL}                 load URL, wait for the load event
    {"eval": JS}                      evaluate JS (awaiting a promise), record its value
    {"key": KEY}                      press and release KEY (Enter, Escape, ArrowLeft, ArrowRight, Tab)
    {"click": CSS}                    a left click in the middle of the first element matching CSS
    {"screenshot": PATH}              a PNG of the viewport
    {"swipe": [FROM, TO]}             a touch swipe across the viewport's middle (fractions of its width)
    {"media": "dark"|"light"}         emulate prefers-color-scheme
    {"wait": MS}                      sleep
Prints one JSON object: {"results": [value of each eval step, in order], "errors": [console
errors, exceptions and error log entries], "failed": [requests that failed], "requests":
[every URL requested]}. Exit status 2 when Chromium cannot be driven.
"""
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

KEYS = {
    "Enter": (13, "\r"), "Escape": (27, ""), "ArrowLeft": (37, ""), "ArrowRight": (39, ""), "Tab": (9, ""),
}


class Chromium:
    def __init__(self, binary, width, height):
        self.profile = tempfile.mkdtemp(prefix="photos-cdp-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def child():
            # Through high numbers first: the pipes may themselves be 3 and 4 (and dup2 onto
            # the same number would keep close-on-exec).
            read_end, write_end = os.dup2(to_chrome_r, 100), os.dup2(from_chrome_w, 101)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + self.profile, "--window-size=%d,%d" % (width, height), "about:blank"],
            preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self.read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def read(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise RuntimeError("Chromium did not answer in time")
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_event(self, method, timeout=30):
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                del self.events[i]
                return event
        deadline = time.time() + timeout
        while True:
            event = self.read(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        subprocess.run(["rm", "-rf", self.profile])


def evaluate(chrome, expression):
    result = chrome.send("Runtime.evaluate", {
        "expression": expression, "awaitPromise": True, "returnByValue": True})
    if "exceptionDetails" in result:
        return {"exception": result["exceptionDetails"].get("exception", {}).get("description", "?")}
    return result.get("result", {}).get("value")


def main():
    config = json.load(open(sys.argv[1]))
    server = None
    base = ""
    if config.get("serve"):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", config["serve"]],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = "http://127.0.0.1:%d/" % port
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
    chrome = Chromium(config["chromium"], config["width"], config["height"])
    results = []
    try:
        target = chrome.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = chrome.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=False)
        chrome.session = attached["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            chrome.send(domain + ".enable")
        chrome.send("Emulation.setDeviceMetricsOverride", {
            "width": config["width"], "height": config["height"], "deviceScaleFactor": 1, "mobile": False})
        for step in config["steps"]:
            if "navigate" in step:
                chrome.send("Page.navigate", {"url": base + step["navigate"]})
                chrome.wait_event("Page.loadEventFired")
            elif "eval" in step:
                results.append(evaluate(chrome, step["eval"]))
            elif "key" in step:
                code, text = KEYS[step["key"]]
                down = {"type": "keyDown", "key": step["key"], "code": step["key"], "windowsVirtualKeyCode": code}
                if text:
                    down["text"] = text
                chrome.send("Input.dispatchKeyEvent", down)
                chrome.send("Input.dispatchKeyEvent", {
                    "type": "keyUp", "key": step["key"], "code": step["key"], "windowsVirtualKeyCode": code})
            elif "click" in step:
                box = evaluate(chrome, "(() => { const r = document.querySelector(%s).getBoundingClientRect();"
                                       " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
                               % json.dumps(step["click"]))
                for kind in ("mousePressed", "mouseReleased"):
                    chrome.send("Input.dispatchMouseEvent", {
                        "type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})
            elif "screenshot" in step:
                shot = chrome.send("Page.captureScreenshot", {"format": "png"})
                with open(step["screenshot"], "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            elif "swipe" in step:
                # A one-finger horizontal swipe across the middle of the viewport, from and to
                # these fractions of its width.
                y = config["height"] / 2
                start, end = (f * config["width"] for f in step["swipe"])
                chrome.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start, "y": y}]})
                chrome.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": end, "y": y}]})
                chrome.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            elif "media" in step:
                chrome.send("Emulation.setEmulatedMedia", {
                    "features": [{"name": "prefers-color-scheme", "value": step["media"]}]})
            elif "wait" in step:
                time.sleep(step["wait"] / 1000)
        time.sleep(0.2)
        # Collect the events still in the pipe.
        try:
            chrome.send("Runtime.evaluate", {"expression": "0"})
        except RuntimeError:
            pass
    except Exception as error:  # the test reports this message
        print(json.dumps({"driverError": str(error)}))
        chrome.close()
        if server:
            server.terminate()
        sys.exit(2)
    chrome.close()
    if server:
        server.terminate()
        server.wait()
    errors, failed, requests = [], [], []
    for event in chrome.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append(params["exceptionDetails"].get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            errors.append(params["entry"].get("text", "") + " " + params["entry"].get("url", ""))
        elif method == "Network.loadingFailed":
            failed.append(params.get("errorText", "") + " " + params.get("requestId", ""))
        elif method == "Network.requestWillBeSent":
            requests.append(params["request"]["url"])
    print(json.dumps({"results": results, "errors": errors, "failed": failed, "requests": requests}))


if __name__ == "__main__":
    main()
