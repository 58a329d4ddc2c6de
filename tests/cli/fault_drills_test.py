#!/usr/bin/python3
"""Fault drills on the simulated fabric: each fault the simulator injects (`sim fault ...`), with a
workload running in its own process and `cudabridge-cli exporter` serving /metrics in another.

For each drill:
 1. the workload's errors are clear: a cudabridge exception of a specific class whose text names
    the cause; never a crash, a bare 'internal error', or a silently wrong result;
 2. the safety supervisor climbs the ladder as plugins/safety/README.md says (the entry rung the
    fault class gives, one rung up per attempt, never above reconnect, marked failed after
    max_retry_count attempts), as `history --json` records it;
 3. `status --json`, `history` and the exporter's /metrics agree (state, link up, interventions,
    last recovery), polled until they do or a generous limit passes;
 4. once the fault is cleared (and `reset` where the policy marked the device failed, `sim plug`
    after an unplug), the device works again: a fresh workload runs to completion with the right
    result.

Usage: fault_drills_test.py CUDABRIDGE_CLI   (the cudabridge package on PYTHONPATH)
Exit 0 when every check passes, 1 on a failure (each printed with FAIL:), 77 (skipped) without
python3-prometheus-client.
Nothing here depends on timing beyond the policy's own: waits poll with generous limits.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("python3-prometheus-client is not installed (scripts/install-deps.sh installs it): skipped")
    sys.exit(77)

from exporter_process import start_exporter  # noqa: E402 - after the skip check

CLI = sys.argv[1] if len(sys.argv) > 1 else "cudabridge-cli"
PYTHON = sys.executable or "/usr/bin/python3"
WAIT_S = 60      # a wait for something that should happen (an event, a process start or exit)
AGREE_S = 15     # status, history and /metrics read at different moments: this long to agree
CALL_S = 120     # one CLI call; longer is a hang

# Short policy timings, set in the drills' store before `connect` (read when a policy is created).
POLICY = {"heartbeat_interval_ms": 200, "heartbeat_timeout_ms": 1000, "retry_delay_ms": 100,
          "max_retry_count": 3, "thermal_limit": 90}
RUNGS = ["soft_reset", "hard_reset", "reconnect"]
# A DeviceResetError that says neither who reset the device nor why (host/src/runtime/device_context.cpp
# memory_dropped() with an empty last action).
CAUSELESS = "was reset; its memory"
REFUSING = ("failed", "emergency-stop", "emergency_stop", "lost", "recovering")

# The workload: a loop on the device (a = a * 1.0001; a.get()) that checks every result on the
# host, prints each distinct cudabridge error (class, code, text), and after an error carries on
# as an application would: after a sticky error a device reset where the device takes work again,
# else a short wait.
# It never resets a device the policy holds (marked failed, stopped): that is the drill's `reset`.
HOLD_PY = r'''
import os, sys, time
import numpy as np
import cudabridge as cb

stop = sys.argv[1]
t0 = time.monotonic()
state = {"s": "connected"}


def say(*parts):
    print("%.2f" % (time.monotonic() - t0), *parts, flush=True)


def on_event(ev):
    state["s"] = ev.get("state")
    say("EVENT", ev.get("kind"), ev.get("state"))


def takes_work():
    if state["s"] != "connected":
        return False
    try:
        cb.telemetry()  # through the device's gate: refused while lost, failed or stopped
        return True
    except cb.Error:
        return False


cb.init(autoconnect=False)
cb.on_event(on_event)
ones = np.ones(1 << 20, np.float32)
a, expect = None, np.float32(1)
ok = wrong = errors = 0
last = None
failing = False
last_reset = 0.0
while not os.path.exists(stop):
    try:
        if a is None:
            a, expect = cb.to_device(ones), np.float32(1)
        a = a * 1.0001
        expect = np.float32(expect * np.float32(1.0001))
        h = a.get()
        if not np.allclose(h, expect, rtol=1e-5, atol=0):
            wrong += 1
            say("WRONG", float(h.min()), float(h.max()), float(expect))
            a = None
            continue
        ok += 1
        if ok == 1:
            say("READY")
        if failing:
            say("RESUMED")
            failing, last = False, None
    except cb.Error as e:
        errors += 1
        failing = True
        a = None
        seen = (type(e).__name__, str(e))
        if seen != last:
            say("CBERROR", type(e).__name__, getattr(e, "code", None), str(e))
        last = seen
        sticky = "sticky" in str(e) or isinstance(e, (cb.DeviceResetError, cb.DeviceLostError))
        if sticky and time.monotonic() - last_reset > 0.2 and takes_work():
            last_reset = time.monotonic()
            try:
                cb.device_reset()
            except cb.Error as e2:
                seen = (type(e2).__name__, str(e2))
                if seen != last:
                    say("CBERROR", type(e2).__name__, getattr(e2, "code", None), str(e2))
                last = seen
        time.sleep(0.05)
say("END", "ok", ok, "errors", errors, "wrong", wrong)
'''

# A fresh workload run to completion: the device works again, with the right result.
RUN_PY = r'''
import sys
import numpy as np
import cudabridge as cb
try:
    cb.init(autoconnect=False)
    a = cb.to_device(np.ones(1 << 20, np.float32))
    expect = np.float32(1)
    for i in range(200):
        a = a * 1.0001
        expect = np.float32(expect * np.float32(1.0001))
        if i % 20 == 19:
            a.get()
    h = a.get()
    good = bool(np.allclose(h, expect, rtol=1e-5, atol=0))
    print("RESULT", "right" if good else "WRONG", float(h.min()), float(h.max()), float(expect), flush=True)
    sys.exit(0 if good else 4)
except cb.Error as e:
    print("CBERROR", type(e).__name__, getattr(e, "code", None), str(e), flush=True)
    sys.exit(3)
'''

class Cli:
    def __init__(self, folder):
        self.folder = folder
        self.db = os.path.join(folder, "cb.db")
        self.env = dict(os.environ)
        for name in ("CUDABRIDGE_PLUGIN_PATH", "CUDABRIDGE_ADD_PLUGIN_PATH", "CUDABRIDGE_HOME", "NO_COLOR",
                     "CUDABRIDGE_TRANSPORT", "CUDABRIDGE_GPU", "CUDABRIDGE_SAFETY", "CUDABRIDGE_LOG_SINKS",
                     "CUDABRIDGE_AUTOCONNECT", "CUDABRIDGE_VISIBLE_DEVICES"):
            self.env.pop(name, None)
        # The workload's runtime finds the same store through CUDABRIDGE_DB.
        self.env.update(HOME=folder, XDG_STATE_HOME=os.path.join(folder, "state"),
                        XDG_DATA_HOME=os.path.join(folder, "data"), CUDABRIDGE_DB=self.db,
                        PYTHONDONTWRITEBYTECODE="1")

    def args(self, *args):
        return [CLI, "--db", self.db, *args]

    def run(self, *args):
        try:
            return subprocess.run(self.args(*args), env=self.env, capture_output=True, text=True, timeout=CALL_S)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(self.args(*args), 124, "", "HANG: no answer in %d s" % CALL_S)

    def status(self):
        r = self.run("status", "--json")
        try:
            return r.returncode, json.loads(r.stdout)
        except ValueError:
            return r.returncode, {"unparsable": r.stdout + r.stderr}

    def events(self):
        r = self.run("history", "-n", "1000000", "--json")
        if r.returncode != 0:
            return []
        return json.loads(r.stdout)["events"]

    def last_event_id(self):
        events = self.events()
        return events[-1]["id"] if events else 0


class Lines:
    """A process's output lines, read on a thread (so its pipe never fills) and kept."""

    def __init__(self, stream):
        self.all = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.all.append(line.rstrip("\n"))

    def wait_for(self, pattern, limit):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if any(re.search(pattern, line) for line in self.all):
                return True
            time.sleep(0.05)
        return any(re.search(pattern, line) for line in self.all)


def resumed(lines):
    """Whether the workload's work runs again: no error, or a RESUMED after its last one."""
    last_error = max([i for i, l in enumerate(lines) if " CBERROR " in l], default=-1)
    return last_error < 0 or any(l.endswith(" RESUMED") for l in lines[last_error + 1:])


def wait_resumed(out, limit):
    deadline = time.monotonic() + limit
    while not resumed(out.all) and time.monotonic() < deadline:
        time.sleep(0.05)
    return resumed(out.all)


def stop_process(p, failures, what):
    if p is None or p.poll() is not None:
        return
    p.send_signal(signal.SIGTERM)
    try:
        code = p.wait(timeout=WAIT_S)
        if code != 0:
            failures.append("%s exits %d on SIGTERM, not 0" % (what, code))
    except subprocess.TimeoutExpired:
        failures.append("%s does not stop on SIGTERM within %d s (a hang)" % (what, WAIT_S))
        p.kill()
        p.wait()


def scrape(base):
    """The exporter's view of GPU 0: state, link_up, telemetry_available, interventions by action."""
    try:
        with urllib.request.urlopen(base + "/metrics", timeout=WAIT_S) as response:
            text = response.read().decode("utf-8")
    except OSError as e:
        return {"error": str(e)}
    out = {"interventions": {}}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.labels.get("gpu", "0") != "0":
                continue
            if s.name == "cudabridge_safety_state" and s.value == 1:
                out.setdefault("states", []).append(s.labels["state"])
            elif s.name == "cudabridge_safety_interventions_total":
                out["interventions"][s.labels["action"]] = int(s.value)
            elif s.name == "cudabridge_link_up":
                out["link_up"] = bool(s.value)
            elif s.name == "cudabridge_gpu_telemetry_available":
                out["telemetry"] = bool(s.value)
    return out


def local_ns(text):
    """status's session start, local time with milliseconds, as nanoseconds since the epoch."""
    whole, _, ms = text.partition(".")
    return int((time.mktime(time.strptime(whole, "%Y-%m-%d %H:%M:%S")) + float("0." + (ms or "0"))) * 1e9)


def views(cli, base):
    """One reading of each view, and the mismatches between them: (settle, labels, reading).
    settle: what must agree once the device is steady; labels: names checked once it is."""
    rc, st = cli.status()
    exp = scrape(base)
    events = cli.events()
    settle, labels = [], []
    reading = {"status_rc": rc, "exporter": exp}
    if "error" in exp:
        return ["the exporter answers no scrape: %s" % exp["error"]], labels, reading
    states = exp.get("states", [])
    reading["exporter_state"] = states
    if len(states) != 1:
        settle.append("exporter: one safety state is 1 (got %s)" % states)
    if "unparsable" in st or rc not in (0, 3, 5, 6):
        settle.append("status --json exits %d: %s" % (rc, str(st)[:300]))
        return settle, labels, reading
    devices = st.get("devices") or []
    if not devices:
        reading["status"] = {k: st.get(k) for k in ("connected", "unreachable", "reason")}
        if states and states[0] not in ("lost", "disconnected"):
            settle.append("exporter state %s while status says no eGPU is reachable (%s)" % (states, st.get("reason")))
        if exp.get("telemetry"):
            settle.append("exporter telemetry available while status reaches no eGPU")
        return settle, labels, reading
    d = devices[0]
    h = d.get("health", {})
    refused = d.get("refused", "")
    reading["status"] = {"state": d["connection"]["state"], "refused": refused, "link_up": h.get("link_up"),
                         "recoveries": h.get("recoveries"), "last_recovery": h.get("last_recovery")}
    if "marked failed" in refused:
        want = "failed"
    elif "emergency stop" in refused:
        want = "emergency-stop"
    elif h.get("link_up") is False:
        want = "lost"
    else:
        want = d["connection"]["state"]
    reading["want"] = want
    # The state: what status says (its refusal included) against the exporter's state.
    if want == "failed" and states and states != ["failed"] and states[0] in REFUSING:
        labels.append("exporter state %s, expected failed (status: %s)" % (states, refused))
    elif states != [want]:
        settle.append("exporter state %s, status says %s%s" % (states, want, " (%s)" % refused if refused else ""))
    if exp.get("link_up") != h.get("link_up"):
        settle.append("exporter link_up %s, status link_up %s" % (exp.get("link_up"), h.get("link_up")))
    if refused and rc != 5:
        labels.append("status exits %d while it says the device is refused (help status: 5): %s" % (rc, refused))
    if not refused and rc != 0:
        settle.append("status exits %d for a device it does not say is refused" % rc)
    # Interventions this session: history's safety events against the exporter's counters and
    # status's recoveries and last recovery.
    since = local_ns(d["session"]["started"])
    mine = [e for e in events if e["device"] == d["id"] and e["time_ns"] >= since and e["kind"].startswith("safety.")]
    counted = {}
    for e in mine:
        counted[e["kind"][7:]] = counted.get(e["kind"][7:], 0) + 1
    for action, n in exp["interventions"].items():
        if counted.get(action, 0) != n:
            settle.append("exporter interventions{action=%s} %d, history %d this session" % (action, n,
                                                                                           counted.get(action, 0)))
    recoveries = sum(counted.get(k, 0) for k in RUNGS + ["emergency_stop"])
    if h.get("recoveries") != recoveries:
        settle.append("status recoveries %s, history %d this session" % (h.get("recoveries"), recoveries))
    rungs = [e for e in mine if e["kind"][7:] in RUNGS + ["emergency_stop"]]
    if rungs and not str(h.get("last_recovery", "")).startswith(rungs[-1]["kind"][7:]):
        settle.append("status last recovery %r, history's last %s" % (h.get("last_recovery"), rungs[-1]["kind"]))
    return settle, labels, reading


def agree(cli, base, failures, when):
    """Polls the three views until they agree (or AGREE_S passes), then checks the state names."""
    deadline = time.monotonic() + AGREE_S
    while True:
        settle, labels, reading = views(cli, base)
        if not settle or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    for m in settle:
        failures.append("%s: %s" % (when, m))
    for m in labels:
        failures.append("%s: %s" % (when, m))
    return reading


def ladder(events, max_retry, failures):
    """The rungs in the order recorded: from each entry, one rung up per attempt (never above
    reconnect), attempts numbered 1..max_retry, then mark_failed once; a safety.recovered starts over."""
    episodes, current = [], []
    for e in events:
        kind = e["kind"][7:] if e["kind"].startswith("safety.") else None
        if kind in RUNGS or kind == "mark_failed":
            current.append(e)
        elif kind == "recovered" and current:
            episodes.append(current)
            current = []
    if current:
        episodes.append(current)
    for episode in episodes:
        entry = None
        for k, e in enumerate(episode, 1):
            kind = e["kind"][7:]
            if kind == "mark_failed":
                if k != max_retry + 1 or e is not episode[-1]:
                    failures.append("mark_failed after %d attempts, policy max_retry_count %d: %s"
                                    % (k - 1, max_retry, e["message"]))
                if "after %d recovery attempts" % max_retry not in e["message"]:
                    failures.append("the mark_failed message does not count %d attempts: %s"
                                    % (max_retry, e["message"]))
                continue
            m = re.search(r"attempt (\d+) of (\d+)", e["message"])
            if not m or int(m.group(1)) != k or int(m.group(2)) != max_retry:
                failures.append("rung %d (%s) is not 'attempt %d of %d': %s" % (k, kind, k, max_retry, e["message"]))
            rung = RUNGS.index(kind)
            if entry is None:
                entry = rung
            elif rung < min(entry + k - 1, 2):
                failures.append("attempt %d is %s, below the ladder's %s: %s"
                                % (k, kind, RUNGS[min(entry + k - 1, 2)], e["message"]))
    return episodes


class Drill:
    def __init__(self, name, inject, cause, entry, outcome, config=None, clear=None, after=None, resume=False):
        self.name = name
        self.inject = inject        # the commands that make the fault
        self.cause = cause          # what the workload's errors and the first rung name (a regex)
        self.entry = entry          # the first action the policy takes
        self.outcome = outcome      # the event that ends the climb: mark_failed, recovered, emergency_stop
        self.config = config or {}  # policy settings for this drill (set before the workload starts)
        self.clear = clear or [["sim", "fault", "clear"]]
        self.after = after or []    # what brings the device back once the fault is cleared
        self.resume = resume        # the running workload carries on by itself once the device is back


def run_drill(cli, drill):
    failures = []
    policy = dict(POLICY, **drill.config)
    for key, value in drill.config.items():
        cli.run("config", "set", "standard." + key, str(value))
    exporter = hold = None
    stop_file = os.path.join(cli.folder, "stop-" + drill.name)
    try:
        exporter, base = start_exporter(cli, WAIT_S)
        first = cli.last_event_id()
        hold = subprocess.Popen([PYTHON, "-c", HOLD_PY, stop_file], env=cli.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        out = Lines(hold.stdout)
        err = Lines(hold.stderr)
        if not out.wait_for(r" READY$", WAIT_S):
            failures.append("the workload did not start: %s" % out.all[-5:])
            return failures
        for args in drill.inject:
            r = cli.run(*args)
            if r.returncode != 0:
                failures.append("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
                return failures

        # 2. The climb, up to the event that ends it.
        deadline = time.monotonic() + WAIT_S
        events = []
        while time.monotonic() < deadline:
            events = [e for e in cli.events() if e["id"] > first]
            kinds = [e["kind"] for e in events]
            if "safety." + drill.outcome in kinds and (drill.outcome != "recovered" or
                                                       any(k[7:] in RUNGS for k in kinds)):
                break
            if drill.outcome != "mark_failed" and "safety.mark_failed" in kinds:
                break
            time.sleep(0.2)
        safety = [e for e in events if e["kind"].startswith("safety.")]
        print("  history:", ", ".join(e["kind"][7:] for e in safety))
        kinds = [e["kind"][7:] for e in safety]
        if drill.outcome not in kinds:
            failures.append("no safety.%s within %d s of the fault (history: %s)" % (drill.outcome, WAIT_S, kinds))
        actions = [e for e in safety if e["kind"][7:] in RUNGS + ["emergency_stop", "mark_failed"]]
        if drill.entry is None:
            if actions:
                failures.append("the policy acted, though nothing was wrong: %s" % [e["message"] for e in actions])
        elif not actions:
            failures.append("the policy took no action")
        else:
            if actions[0]["kind"][7:] != drill.entry:
                failures.append("the policy entered at %s, expected %s: %s" % (actions[0]["kind"], drill.entry,
                                                                              actions[0]["message"]))
            if not re.search(drill.cause, actions[0]["message"], re.I):
                failures.append("the first action does not name the cause /%s/: %s" % (drill.cause,
                                                                                      actions[0]["message"]))
        if drill.outcome == "recovered" and "mark_failed" in kinds:
            failures.append("marked failed, though the policy's retries outlast the fault: %s" % kinds)
        if drill.outcome != "emergency_stop":
            ladder(safety, policy["max_retry_count"], failures)

        # 3. The views agree while the device stays as the policy left it, and say what history says.
        reading = agree(cli, base, failures, "after the climb")
        said = (reading.get("status") or {})
        if drill.outcome == "mark_failed" and "marked failed" not in str(said.get("refused")) \
                and not said.get("unreachable") and said.get("connected") is not False:
            failures.append("after the climb: history says mark_failed, status does not: %s" % said)
        if drill.outcome == "emergency_stop" and "emergency stop" not in str(said.get("refused")):
            failures.append("after the climb: history says emergency_stop, status does not: %s" % said)
        print("  views after the climb:", json.dumps({k: reading.get(k) for k in ("status", "exporter_state",
                                                                                 "status_rc")}))

        # Clear the fault. A workload that stays (resume) must carry on by itself once the device is
        # back: after the policy's own recovery, or after the drill's reset. Otherwise it stops first
        # (the thermal drill's workload keeps its low limit and would stop the device again; after
        # an unplug its connection is gone).
        for args in drill.clear:
            r = cli.run(*args)
            if r.returncode != 0:
                failures.append("%s: %s" % (" ".join(args), r.stderr.strip()))

        def bring_back():  # 4. with the store's policy as before the drill
            for key in drill.config:
                cli.run("config", "set", "standard." + key, str(POLICY.get(key)))
            for args in drill.after:
                r = cli.run(*args)
                if r.returncode != 0:
                    failures.append("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))

        if drill.resume:
            bring_back()
            if not wait_resumed(out, WAIT_S):
                failures.append("the running workload's own work did not resume once the device was back: %s"
                                % out.all[-3:])
        open(stop_file, "w").close()
        try:
            code = hold.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            failures.append("the workload does not end within %d s of its stop (a hang): %s" % (WAIT_S, out.all[-3:]))
            hold.kill()
            code = hold.wait()
        out.wait_for(r" END ", 5)

        # 1. The workload's errors.
        errors = [l for l in out.all if " CBERROR " in l]
        print("  workload: exit %d, %d distinct error(s)%s" % (code, len(errors), "" if not errors else
                                                              "; first: " + errors[0].split(" CBERROR ", 1)[1][:200]))
        if code != 0:
            failures.append("the workload crashed or failed (exit %d): %s %s" % (code, out.all[-3:], err.all[-5:]))
        if any(" WRONG " in l for l in out.all):
            failures.append("the workload got a wrong result without an error: %s"
                            % [l for l in out.all if " WRONG " in l][:3])
        if not any(l.split()[1:2] == ["END"] for l in out.all):
            failures.append("the workload did not report its end: %s" % out.all[-3:])
        for line in errors:
            cls, _, text = line.split(" CBERROR ", 1)[1].partition(" ")
            text = text.split(" ", 1)[1] if " " in text else text
            if not text.strip() or re.search(r"internal error", text, re.I):
                failures.append("an unclear workload error: %s" % line)
            elif cls == "Error":
                failures.append("the workload's error is the base class cudabridge.Error: %s" % line)
            elif cls == "LaunchError" and "kernel" not in text:
                failures.append("the workload's error is a LaunchError (a kernel failed) for no kernel's failure: %s"
                                % line)
            elif CAUSELESS in text:
                failures.append("the workload's DeviceResetError does not say who reset the device or why: %s" % line)
        if [l for l in errors if CAUSELESS not in l] and not any(re.search(drill.cause, l, re.I) for l in errors):
            failures.append("no workload error names the cause /%s/: %s" % (drill.cause, errors))

        if not drill.resume:
            bring_back()
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                r = subprocess.run([PYTHON, "-c", RUN_PY], env=cli.env, capture_output=True, text=True,
                                   timeout=CALL_S)
            except subprocess.TimeoutExpired as e:
                r = subprocess.CompletedProcess(e.cmd, 124, "HANG", "")
            if r.returncode == 0 or time.monotonic() > deadline or r.returncode in (4, 124):
                break
            time.sleep(0.5)
        print("  workload after recovery:", (r.stdout.strip() or r.stderr.strip()[-300:])[:300])
        if r.returncode != 0 or "RESULT right" not in r.stdout:
            failures.append("the device does not work again (exit %d): %s" % (r.returncode,
                                                                             (r.stdout + r.stderr).strip()[-400:]))
        reading = agree(cli, base, failures, "after the recovery")
        if reading.get("want") != "connected" or reading.get("exporter_state") != ["connected"]:
            failures.append("after the recovery: not connected everywhere: %s" % json.dumps(
                {k: reading.get(k) for k in ("status", "exporter_state")}))
        print("  views after the recovery:", json.dumps({k: reading.get(k) for k in ("status", "exporter_state",
                                                                                    "status_rc")}))
    finally:
        if hold is not None and hold.poll() is None:
            hold.kill()
            hold.wait()
        stop_process(exporter, failures, "the exporter")
    return failures


def main():
    started = time.monotonic()
    r = subprocess.run([PYTHON, "-c", "import cudabridge, numpy"], capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: the cudabridge package does not import (PYTHONPATH?):", r.stderr.strip()[-300:])
        return 1
    def fault(*args):
        return [["sim", "fault", *args]]

    drills = [
        # Every packet damaged: the link cannot deliver; work fails with an integrity error and the
        # error rate climbs the ladder from a soft reset to the failed mark; a reset brings it back.
        Drill("bit-errors-high", fault("bit-errors", "0.5"), r"error rate|integrity|CRC|safety supervisor",
              "soft_reset", "mark_failed", after=[["reset"]], resume=True),
        # ~19 % of packets damaged: CRC and replay deliver the data (every result is checked on the
        # host), but the rate is over the 1 % threshold: the whole ladder.
        Drill("bit-errors-low", fault("bit-errors", "1e-4"), r"error rate|integrity|CRC|safety supervisor",
              "soft_reset", "mark_failed", after=[["reset"]], resume=True),
        # A 2 s link drop, with retries that outlast it: reconnects until the link is back, no mark.
        Drill("link-drop", fault("link-drop", "2000"), r"link.{0,40}down", "reconnect", "recovered",
              config={"max_retry_count": 10, "retry_delay_ms": 300}, resume=True),
        # Unplugged mid-copy after 100 MB: the enclosure leaves the fabric, reconnects find nothing,
        # marked failed; plugged back in and reset.
        Drill("unplug-after", fault("unplug-after", "100000000"), r"link.{0,40}down|lost|unplug|not there",
              "reconnect", "mark_failed", after=[["sim", "plug", "0"], ["reset"]]),
        # A surprise removal of the open links only: the enclosure stays in the fabric, so the first
        # reconnect finds it again.
        Drill("unplug", fault("unplug"), r"link.{0,40}down|lost|unplug", "reconnect", "recovered", resume=True),
        # A hung function: it stops answering on a live link; the hard reset brings it back.
        Drill("stuck", fault("stuck", "on"), r"stopped (answering|responding)", "hard_reset", "recovered",
              resume=True),
        # The IOMMU (DART) has no room: mappings refused, a hard reset; reconnects cannot map either.
        Drill("dart-exhausted", fault("dart-exhausted", "on"), r"DMA|IOMMU", "hard_reset", "mark_failed",
              after=[["reset"]], resume=True),
        # Over the thermal limit (20 C, below the board's idle temperature): an emergency stop until
        # a reset; the workload is refused with the temperature.
        Drill("thermal", [], r"thermal limit|temperature", "emergency_stop", "emergency_stop",
              config={"thermal_limit": 20}, clear=[], after=[["reset"]]),
        # The manual rung: `reset` from another program while the workload runs. Its queued work is
        # abandoned (safety.reset_elsewhere); it carries on by itself.
        Drill("manual-reset", [["reset"], ["reset"]], r"reset", None, "reset_elsewhere", clear=[], resume=True),
    ]
    only = set(os.environ.get("FAULT_DRILLS", "").split(",")) - {""}
    failed = []
    with tempfile.TemporaryDirectory() as folder:
        cli = Cli(folder)
        cli.run("config", "set", "file.dir", os.path.join(folder, "logs"))
        for key, value in POLICY.items():
            r = cli.run("config", "set", "standard." + key, str(value))
            if r.returncode != 0:
                print("FAIL: config set standard.%s: %s" % (key, r.stderr))
                return 1
        r = cli.run("connect")
        if r.returncode != 0:
            print("FAIL: connect:", r.stderr)
            return 1
        try:
            for drill in drills:
                if only and drill.name not in only:
                    continue
                t0 = time.monotonic()
                print("drill %s: %s%s" % (drill.name, "; ".join(" ".join(c) for c in drill.inject) or "(policy)",
                                          "".join(" %s=%s" % kv for kv in drill.config.items())))
                try:
                    failures = run_drill(cli, drill)
                except Exception as e:  # noqa: BLE001 - a drill's harness error is that drill's failure
                    failures = ["the drill stopped: %r" % e]
                for f in failures:
                    print("  FAIL:", f)
                if failures:
                    failed.append(drill.name)
                print("drill %s: %s (%.1f s)" % (drill.name, "FAIL" if failures else "pass", time.monotonic() - t0))
                # The next drill starts from a clean device.
                cli.run("sim", "fault", "clear")
                rc, st = cli.status()
                if rc != 0:
                    cli.run("reset")
        finally:
            cli.run("disconnect", "--force")
    print("%.1f s in all" % (time.monotonic() - started))
    if failed:
        print("%d drill(s) failed: %s" % (len(failed), ", ".join(failed)))
        return 1
    print("fault drills: every check passed (known defects above, if any)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
