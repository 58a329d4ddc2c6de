#!/usr/bin/env bash
# Re-measures the CLI's reliability figures against one cudabridge-cli, for a person to read
# (not a CI gate): concurrent load on one store, SIGKILL in the middle of log writes, and a few
# hundred malformed command lines. Each measurement runs in its own temporary CUDABRIDGE_HOME
# with a simulated eGPU connected, so the user's own store and log files are never touched.
# Takes --seconds plus about two minutes; prints the anomalies, then a table.
#   usage: bash scripts/soak.sh [--cli PATH] [--seconds N]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cli=$root/build/bin/cudabridge-cli
seconds=60
python=${PYTHON:-python3}
load_processes=8
kill_attempts=100
scratch=

usage() {
  echo "usage: bash scripts/soak.sh [--cli PATH] [--seconds N]" >&2
  echo "  --cli PATH    the cudabridge-cli to measure (default: build/bin/cudabridge-cli)" >&2
  echo "  --seconds N   how long the load runs (default: 60)" >&2
  exit 2
}

parse_args() {
  while (($#)); do
    case $1 in
      --cli) (($# >= 2)) || usage; cli=$2; shift 2 ;;
      --cli=*) cli=${1#--cli=}; shift ;;
      --seconds) (($# >= 2)) || usage; seconds=$2; shift 2 ;;
      --seconds=*) seconds=${1#--seconds=}; shift ;;
      -h | --help) usage ;;
      *) echo "soak.sh: unknown argument '$1'" >&2; usage ;;
    esac
  done
  [[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "soak.sh: --seconds needs a positive whole number" >&2; exit 2; }
  # The phases run from a scratch folder, so a relative --cli must be made absolute first.
  [[ $cli == /* ]] || cli=$PWD/$cli
  [[ -x $cli ]] || { echo "soak.sh: $cli is not an executable (build it, or give --cli PATH)" >&2; exit 2; }
  command -v "$python" >/dev/null || { echo "soak.sh: $python not found (set PYTHON)" >&2; exit 2; }
}

cleanup() {
  if [[ -n $scratch ]]; then rm -rf -- "$scratch"; fi
}

make_scratch() {
  scratch=$(mktemp -d -t cudabridge-soak.XXXXXX)
  trap cleanup EXIT
  mkdir "$scratch/work" "$scratch/results"
  # Malformed lines may name relative files (profile export, plugins new): keep them in here.
  cd "$scratch/work"
}

# A fresh store with a simulated eGPU connected; prints the home's path.
prepare_home() {
  local home=$scratch/$1
  mkdir "$home"
  # The file sink declares file.dir only once it has run, and a session started before that
  # writes to the shared default log folder: a first record with the folder on the command
  # line (no session) declares it, so every later record lands in this home.
  if ! CUDABRIDGE_HOME=$home "$cli" --log-sink console --log-sink sqlite --log-sink "file:dir=$home/logs" \
    log write "soak: store prepared" >/dev/null 2>&1; then
    echo "soak.sh: 'log write' fails in a fresh store ($home)" >&2
    exit 1
  fi
  CUDABRIDGE_HOME=$home "$cli" config set file.dir "$home/logs" >/dev/null
  if ! CUDABRIDGE_HOME=$home "$cli" sim list | grep -Eq '^[0-9]+ '; then
    echo "soak.sh: 'sim list' shows no simulated enclosure in $home" >&2
    exit 1
  fi
  if ! CUDABRIDGE_HOME=$home "$cli" connect >"$home/connect.out" 2>&1; then
    echo "soak.sh: 'connect' failed in a fresh store:" >&2
    cat "$home/connect.out" >&2
    exit 1
  fi
  echo "$home"
}

run_phase() {
  local phase=$1 home
  shift
  home=$(prepare_home "$phase")
  soak_py "$phase" "$cli" "$home" "$scratch/results/$phase.json" "$@"
}

# The measurements themselves: Python, for timeouts, SIGKILL at a chosen moment and JSON.
soak_py() {
  "$python" - "$@" <<'PY'
import concurrent.futures as futures
import json
import os
import pathlib
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time

LOG_ALL = ["--json", "log", "-n", "2147483647"]  # -n takes an int: its maximum lists every record
CRASH_TEXT = re.compile(rb"Segmentation|Aborted|terminate called|core dumped|AddressSanitizer|stack smashing")
# 'info' prints "Locked : no" for the clocks, so a bare "locked" only counts in lower case.
STORE_TROUBLE = re.compile(rb"(?i:malformed|database (?:table )?is locked|sqlite_busy|sqlite_locked)|\blocked\b")


def cli_env(home):
    env = dict(os.environ, CUDABRIDGE_HOME=home)
    env.pop("CUDABRIDGE_DB", None)  # it would win over CUDABRIDGE_HOME and reach the user's store
    return env


def run_cli(cli, home, args, timeout):
    """(exit code or None on timeout, stdout, stderr); a negative code is a signal."""
    try:
        p = subprocess.run([cli, *args], env=cli_env(home), stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b""


def crashed(rc, out, err):
    return rc is not None and (rc < 0 or rc >= 128) or bool(CRASH_TEXT.search(out + err))


def log_messages(cli, home):
    rc, out, _ = run_cli(cli, home, LOG_ALL, 60)
    if rc != 0:
        return None
    return {r.get("message") for r in json.loads(out)}


def integrity(cli, home):
    """Both SQLite's own integrity_check and the CLI's (diag's store_integrity) must say ok."""
    db = pathlib.Path(home, "cudabridge.db")
    try:
        con = sqlite3.connect(db.as_uri() + "?mode=ro", uri=True, timeout=30)
        rows = con.execute("PRAGMA integrity_check").fetchall()
        con.close()
        sql = "ok" if rows == [("ok",)] else "; ".join(str(r[0]) for r in rows)[:200]
    except sqlite3.Error as e:
        sql = f"error: {e}"
    rc, out, err = run_cli(cli, home, ["--json", "diag"], 60)
    try:
        test = next(t for t in json.loads(out)["tests"] if t["test"] == "store_integrity")
        diag = "ok" if test["result"] == "PASS" else f"{test['result']}: {test['reason']}"
    except (ValueError, KeyError, StopIteration):
        diag = f"diag exit {rc}: {(out + err)[-200:].decode(errors='replace')}"
    ok = sql == "ok" and diag == "ok"
    return ok, "ok" if ok else f"sqlite: {sql}; diag: {diag}"


def show_arg(a):
    """One argument as a shell would need it, long or binary ones shortened."""
    if isinstance(a, str):
        a = a.encode()
    head = a[:48]
    if all(32 <= b < 127 for b in head) and b"'" not in head:
        text = "'" + head.decode() + "'" if (not head or re.search(rb"[^\w./=:,+-]", head)) else head.decode()
    else:
        text = "$'" + "".join(chr(b) if 32 <= b < 127 and b not in b"'\\" else f"\\x{b:02x}" for b in head) + "'"
    return text + (f"...({len(a)} bytes)" if len(a) > 48 else "")


def show_line(args):
    return "cudabridge-cli " + " ".join(show_arg(a) for a in args)


def save(path, result):
    with open(path, "w") as f:
        json.dump(result, f, indent=1)


# ---- 1. load: concurrent clients on one store ---------------------------------------------

def load(cli, home, path, seconds, processes):
    seconds, processes = int(seconds), int(processes)
    fixed = [["status"], ["status", "--json"], ["log", "-n", "5"], ["history"],
             ["query", "--query-gpu=name,temperature.gpu", "--format=csv"], ["info"],
             ["config", "get", "file.max_files"]]
    lock = threading.Lock()
    totals = {"commands": 0, "nonzero": 0, "crashes": 0, "hangs": 0, "trouble": 0}
    acked, examples = [], []
    deadline = time.monotonic() + seconds

    def client(proc):
        rnd = random.Random()
        n = 0
        while time.monotonic() < deadline:
            pick = rnd.randrange(len(fixed) + 2)
            text = None
            if pick == len(fixed):
                n += 1
                text = f"soak {proc} {n}"
                args = ["log", "write", text]
            elif pick == len(fixed) + 1:
                args = ["config", "set", "file.max_files", rnd.choice(["5", "6"])]  # harmless
            else:
                args = fixed[pick]
            rc, out, err = run_cli(cli, home, args, 60)
            # Readers echo stored records: only their stderr speaks for the command itself.
            said = err if args[0] in ("log", "history") else out + err
            with lock:
                totals["commands"] += 1
                totals["hangs"] += rc is None
                totals["nonzero"] += rc not in (0, None)
                totals["crashes"] += crashed(rc, out, err)
                if STORE_TROUBLE.search(said):
                    totals["trouble"] += 1
                if (rc != 0 or STORE_TROUBLE.search(said)) and len(examples) < 10:
                    examples.append({"line": show_line(args), "rc": rc,
                                     "output": (out + err)[-400:].decode(errors="replace")})
                if text and rc == 0:
                    acked.append(text)

    workers = [threading.Thread(target=client, args=(i + 1,)) for i in range(processes)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stored = log_messages(cli, home) or set()
    ok, why = integrity(cli, home)
    save(path, dict(totals, processes=processes, seconds=seconds, acked=len(acked),
                    present=sum(t in stored for t in acked), integrity=why, examples=examples))


# ---- 2. kill -9 in the middle of log writes ------------------------------------------------

def kill(cli, home, path, attempts):
    attempts = int(attempts)
    env = cli_env(home)
    acked, lost = set(), set()
    integrity_ok, unreadable, failures = 0, 0, []
    for attempt in range(1, attempts + 1):
        # The loop writes until a moment drawn from 10-200 ms, then its running write is killed.
        deadline = time.monotonic() + random.uniform(0.010, 0.200)
        n = 0
        while True:
            n += 1
            text = f"kill {attempt} {n}"
            p = subprocess.Popen([cli, "log", "write", text], env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                rc = p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
                break
            if rc == 0:
                acked.add(text)
            elif len(failures) < 10:
                failures.append({"line": show_line(["log", "write", text]), "rc": rc, "output": ""})
        ok, why = integrity(cli, home)
        integrity_ok += ok
        if not ok and len(failures) < 10:
            failures.append({"line": f"integrity after kill {attempt}", "rc": None, "output": why})
        stored = log_messages(cli, home)
        if stored is None:
            unreadable += 1
            continue
        lost |= acked - stored
    save(path, {"attempts": attempts, "integrity_ok": integrity_ok, "acked": len(acked),
                "lost": len(lost), "lost_texts": sorted(lost)[:20], "unreadable": unreadable,
                "examples": failures})


# ---- 3. malformed command lines ---------------------------------------------------------------

def malformed_lines(work):
    """(args, invalid): invalid lines must fail; for the others any exit without a crash or
    hang is fine (a very long or binary log message may be stored as it is)."""
    rnd = random.Random(20240601)  # the same lines every run, so results compare
    big = "A" * 70000
    big_digits = "9" * 70000
    binary = bytes(rnd.randrange(1, 256) for _ in range(64))
    big_binary = bytes(rnd.randrange(1, 256) for _ in range(70000))
    bad_numbers = ["nan", "inf", "-1", "abc", "", "1e999", "99999999999999999999999", "12abc", "0x"]
    missing = os.path.join(work, "no-such-file")
    with open(os.path.join(work, "bad.json"), "w") as f:
        f.write("{not json")
    with open(os.path.join(work, "not-a-library.so"), "w") as f:
        f.write("plain text\n")
    lines = []

    def bad(*args):
        lines.append((list(args), True))

    def edge(*args):
        lines.append((list(args), False))

    # Numbers where a count, index, duration, rate or setting is expected.
    numeric = [
        ["log", "-n", "{}"], ["history", "-n", "{}"], ["query", "--gpu=name", "-c", "{}"],
        ["query", "--gpu=name", "-l", "{}", "-c", "1"], ["query", "--gpu=name", "-lms", "{}", "-c", "1"],
        ["monitor", "-c", "{}"], ["monitor", "-i", "{}", "-c", "1"], ["diag", "-r", "{}"],
        ["diag", "-r", "3", "--duration", "{}"], ["disconnect", "--timeout", "{}"],
        ["-d", "{}", "status"], ["--device={}", "query", "--gpu=name"], ["-d", "{}", "info"],
        ["config", "clock", "{}", "1000"], ["config", "clock", "2000", "{}"], ["config", "power", "{}"],
        ["config", "fan", "{}"], ["config", "set", "standard.thermal_limit", "{}"],
        ["config", "set", "file.max_files", "{}"], ["config", "set", "standard.error_rate_threshold", "{}"],
        ["config", "set", "sqlite.busy_timeout_ms", "{}"], ["sim", "plug", "rtx-4090", "--power", "{}"],
        ["sim", "fault", "bit-errors", "{}"], ["sim", "fault", "link-drop", "{}"],
        ["sim", "fault", "unplug-after", "{}"], ["sim", "unplug", "{}"], ["sim", "remove", "{}"],
        ["sim", "fault", "clear", "--enclosure", "{}"], ["profile", "set", "rtx-4090", "power_max_w", "{}"],
        ["benchmark", "--max-size", "{}"], ["connect", "{}"],
    ]
    for template in numeric:
        for value in bad_numbers:
            bad(*[t.replace("{}", value) for t in template])

    for name in ["frobnicate", "STATUS", "statuss", "stat", "lo", "-", "---", "", " ", "status;ls",
                 "../status", "\t", "log\n", "ｓｔａｔｕｓ", "é", "connect2", "help2", big, binary]:
        bad(name)

    commands = [["status"], ["info"], ["query", "--gpu=name"], ["connect"], ["disconnect"], ["config", "show"],
                ["diag"], ["benchmark"], ["reset"], ["devices"], ["forget", "0"], ["log"], ["history"], ["sim", "list"],
                ["plugins", "list"], ["profile", "list"], ["help"], ["version"], ["completion", "bash"],
                ["monitor", "-c", "1"], ["exporter"], ["run"]]
    for c in commands:
        for option in ["--bogus", "-Z"]:
            bad(*c, option)
        if len(c) == 1:
            bad(*c, "--bogus=1")
    for option in ["--bogus", "-Q", "--json=yes", "--verbose=3", "--no-color=1", "--device"]:
        bad(option, "status")

    for args in [["log", "write"], ["log", "-n"], ["log", "--level"], ["log", "--since"], ["log", "--category"],
                 ["history", "-n"], ["history", "--kind"], ["history", "--since"], ["history", "--severity"],
                 ["query", "--gpu"], ["query", "--gpu="], ["query", "--gpu=name", "--format"], ["query"],
                 ["config"], ["config", "set"], ["config", "set", "file.max_files"], ["config", "get"],
                 ["config", "clock"], ["config", "clock", "2000"], ["config", "power"], ["config", "fan"],
                 ["config", "pstate"], ["sim", "plug"], ["sim", "unplug"], ["sim", "remove"], ["sim", "fault"],
                 ["sim", "fault", "bit-errors"], ["sim", "fault", "link-drop"], ["sim", "fault", "unplug-after"],
                 ["sim", "host"], ["forget"], ["profile", "show"], ["profile", "set"], ["profile", "set", "rtx-4090"],
                 ["profile", "set", "rtx-4090", "power_max_w"], ["profile", "reset"], ["profile", "import"],
                 ["profile", "export"], ["plugins", "info"], ["plugins", "verify"], ["plugins", "new"],
                 ["plugins", "new", "logsink"], ["run", "--"], ["completion"], ["diag", "-r"],
                 ["diag", "--duration"], ["disconnect", "--timeout"], ["exporter", "--listen"], ["monitor", "-i"],
                 ["monitor", "-c"], ["info", "--section"], ["benchmark", "--max-size"], ["benchmark", "--plot"],
                 ["-d"], ["--db"], ["--transport"], ["--log-sink"], ["--plugin-path"]]:
        bad(*args)

    for args in [["status", "extra"], ["status", "--json", "extra"], ["info", "extra"], ["version", "extra"],
                 ["devices", "extra"], ["history", "extra"], ["log", "-n", "5", "extra"], ["disconnect", "extra"],
                 ["reset", "extra"], ["reset", "--hard", "extra"], ["diag", "extra"], ["benchmark", "extra"],
                 ["monitor", "-c", "1", "extra"], ["exporter", "extra"], ["config", "show", "extra"],
                 ["config", "list", "extra"], ["config", "get", "file.max_files", "extra"],
                 ["config", "set", "file.max_files", "5", "extra"], ["config", "clock", "2000", "1000", "extra"],
                 ["config", "power", "300", "extra"], ["config", "clock", "reset", "extra"], ["sim", "list", "extra"],
                 ["sim", "reset", "extra"], ["sim", "host", "x86", "extra"], ["sim", "fault", "clear", "extra"],
                 ["sim", "unplug", "0", "extra"], ["profile", "list", "extra"], ["profile", "show", "rtx-4090", "extra"],
                 ["plugins", "list", "extra"], ["completion", "bash", "extra"], ["help", "status", "extra"],
                 ["forget", "0", "extra"], ["connect", "0", "extra"], ["query", "--gpu=name", "extra"],
                 ["history", "-n", "5", "extra"]]:
        bad(*args)

    for args in [["log", "--level", "BOGUS"], ["log", "--level", ""], ["log", "--level", "7"],
                 ["log", "write", "--level", "BOGUS", "x"], ["log", "--since", "BOGUS"], ["log", "--since", "10x"],
                 ["log", "--since", ""], ["history", "--since", "yesterdayish"], ["history", "--severity", "BOGUS"],
                 ["query", "--gpu=bogus.field"], ["query", "--gpu=name,,temperature.gpu"],
                 ["query", "--gpu=name", "--format=xml"], ["query", "--gpu=name", "--format=csv,bogus"],
                 ["query", "--gpu=name", "--format="], ["query", "--query-compute-apps=bogus"],
                 ["info", "--section", "bogus"], ["info", "--section", "product,bogus"], ["info", "--section", ""],
                 ["sim", "plug", "bogus-gpu"], ["sim", "plug", "rtx-4090", "--link", "tb9"],
                 ["sim", "plug", "rtx-4090", "--link", ""], ["sim", "plug", "rtx-4090", "--security", "bogus"],
                 ["sim", "host", "bogus"], ["sim", "host", ""], ["sim", "fault", "bogus"],
                 ["sim", "fault", "dart-exhausted", "maybe"], ["sim", "fault", "stuck", "maybe"], ["sim", "bogus"],
                 ["config", "pstate", "P16"], ["config", "pstate", "P-1"], ["config", "pstate", "Q0"],
                 ["config", "pstate", "PP0"], ["config", "pstate", "P"], ["config", "fan", "manual"],
                 ["config", "fan", "101"], ["config", "bogus"], ["config", "set", "bogus.key", "1"],
                 ["config", "set", "log.level", "LOUD"], ["config", "set", "log.sinks", "bogus"],
                 ["config", "set", "log.sinks", ""], ["config", "set", "console.color", "sometimes"],
                 ["config", "set", "log.overflow_policy", "maybe"], ["config", "get", "bogus.key"],
                 ["completion", "fish"], ["completion", ""], ["profile", "bogus"], ["profile", "show", "bogus-model"],
                 ["profile", "set", "rtx-4090", "bogus_key", "1"], ["profile", "set", "rtx-4090", "power_max_w", "350MHz"],
                 ["profile", "reset", "bogus-model"], ["profile", "import", missing],
                 ["profile", "import", os.path.join(work, "bad.json")], ["profile", "export", "bogus-model"],
                 ["plugins", "bogus"], ["plugins", "info", "bogus"], ["plugins", "verify", missing],
                 ["plugins", "verify", os.path.join(work, "not-a-library.so")], ["plugins", "new", "bogus", "name"],
                 ["plugins", "new", "logsink", "1bad"], ["plugins", "new", "logsink", "Bad-Name"],
                 ["run", "--", missing], ["exporter", "--listen", "bogus"], ["exporter", "--listen", ":99999"],
                 ["exporter", "--listen", ":-1"], ["exporter", "--listen", ""], ["exporter", "--listen", "host:"],
                 ["--transport", "bogus", "status"], ["--gpu", "bogus", "status"], ["--safety", "bogus", "status"],
                 ["--log-sink", "bogus", "status"], ["--db", work, "status"], ["help", "bogus"], ["diag", "-r", "4"],
                 ["diag", "-r", "0"], ["diag", "-r", "1.5"], ["disconnect", "--timeout", "1.5s"]]:
        bad(*args)

    # Overlong and binary values where a short word or a number is expected.
    for value in [big, binary]:
        for template in [["log", "--level", "{}"], ["log", "--since", "{}"], ["query", "--gpu={}"],
                         ["query", "--gpu=name", "--format={}"], ["info", "--section", "{}"], ["sim", "plug", "{}"],
                         ["sim", "host", "{}"], ["sim", "fault", "{}"], ["config", "get", "{}"],
                         ["config", "set", "{}", "1"], ["config", "set", "log.level", "{}"], ["connect", "{}"],
                         ["forget", "{}"], ["profile", "show", "{}"], ["plugins", "info", "{}"],
                         ["--transport", "{}", "status"], ["completion", "{}"], ["help", "{}"], ["--{}"]]:
            v = value if isinstance(value, bytes) else value.encode()
            bad(*[t.encode().replace(b"{}", v) for t in template])
    for template in [["log", "-n", "{}"], ["-d", "{}", "status"], ["config", "set", "file.max_files", "{}"],
                     ["config", "power", "{}"], ["sim", "fault", "link-drop", "{}"]]:
        bad(*[t.replace("{}", big_digits) for t in template])
    for template in [["{}"], ["config", "get", "{}"], ["sim", "plug", "{}"], ["query", "--gpu={}"],
                     ["log", "--level", "{}"]]:
        bad(*[t.encode().replace(b"{}", big_binary) for t in template])

    # Free text: storing it as given is a fair answer.
    for value in [big, binary, big_binary]:
        edge("log", "write", value)
        edge("sim", "plug", "rtx-4090", "--name", value)
        edge("log", "--category", value)
        edge("history", "--kind", value)
    edge("log", "write", "two", "words")
    edge("--")  # no command at all, like a bare cudabridge-cli: the help
    edge("reset", "--soft")  # soft is the documented default
    edge("log", "--category", "BOGUS")
    return lines


def malformed(cli, home, path, work):
    lines = malformed_lines(work)
    counts = {"crashes": 0, "hangs": 0, "wrong_ok": 0, "clear": 0, "silent": 0, "edge": 0, "edge_ok": 0}
    listed = []

    def one(case):
        args, invalid = case
        rc, out, err = run_cli(cli, home, args, 10)
        return args, invalid, rc, out, err

    with futures.ThreadPoolExecutor(2) as pool:
        for args, invalid, rc, out, err in pool.map(one, lines):
            counts["edge"] += not invalid
            text = (err + out).decode(errors="replace")  # a warning on stderr explains an exit 0
            entry = {"line": show_line(args), "rc": rc, "output": text[:300] + ("..." if len(text) > 300 else "")}
            if crashed(rc, out, err):
                counts["crashes"] += 1
                listed.append(dict(entry, kind="crash"))
            elif rc is None:
                counts["hangs"] += 1
                listed.append(dict(entry, kind="hang (10 s)"))
            elif rc == 0:
                if invalid:
                    counts["wrong_ok"] += 1
                    listed.append(dict(entry, kind="exit 0 on invalid input"))
                else:
                    counts["edge_ok"] += 1
            elif invalid:
                counts["clear" if text.strip() else "silent"] += 1
                if not text.strip():
                    listed.append(dict(entry, kind="non-zero exit without a message"))
    ok, why = integrity(cli, home)
    rc, out, err = run_cli(cli, home, ["status"], 30)
    status = f"exit {rc}" + ("" if rc == 0 else ": " + (out + err)[-200:].decode(errors="replace").strip())
    save(path, dict(counts, lines=len(lines), integrity=why, status=status, anomalies=listed))


# ---- the report ------------------------------------------------------------------------------

def table(results):
    def read(name):
        try:
            with open(os.path.join(results, name + ".json")) as f:
                return json.load(f)
        except OSError:
            return None

    load_r, kill_r, bad_r = read("load"), read("kill"), read("malformed")
    for title, r, key in [("load: failed or suspicious commands", load_r, "examples"),
                          ("kill -9: failures", kill_r, "examples"),
                          ("malformed: anomalies", bad_r, "anomalies")]:
        if r and r.get(key):
            print(f"\n{title}:")
            for e in r[key]:
                kind = e.get("kind", f"exit {e['rc']}")
                print(f"  [{kind}] {e['line']}")
                for line in e["output"].strip().splitlines()[:6]:
                    print(f"      {line}")
    if kill_r and kill_r["lost_texts"]:
        print("\nkill -9: acknowledged writes missing:", ", ".join(kill_r["lost_texts"]))
    rows = []
    if load_r:
        r = load_r
        rows += [("load: processes x seconds", f"{r['processes']} x {r['seconds']} s"),
                 ("load: commands run", f"{r['commands']} ({r['nonzero']} non-zero exits, {r['crashes']} crashes, "
                                        f"{r['hangs']} hangs)"),
                 ("load: acknowledged writes present", f"{r['present']} / {r['acked']}"),
                 ("load: malformed/locked outputs", str(r["trouble"])),
                 ("load: integrity check", r["integrity"])]
    if kill_r:
        r = kill_r
        rows += [("kill -9: attempts", str(r["attempts"])),
                 ("kill -9: integrity ok", f"{r['integrity_ok']} / {r['attempts']}"),
                 ("kill -9: acknowledged writes lost", f"{r['lost']} of {r['acked']}"
                  + (f" (log unreadable {r['unreadable']} times)" if r["unreadable"] else ""))]
    if bad_r:
        r = bad_r
        rows += [("malformed: invocations", f"{r['lines']} ({r['lines'] - r['edge']} invalid, {r['edge']} free-text)"),
                 ("malformed: crashes", str(r["crashes"])),
                 ("malformed: hangs (10 s)", str(r["hangs"])),
                 ("malformed: exit 0 on invalid input", str(r["wrong_ok"])),
                 ("malformed: non-zero, clear error", str(r["clear"])),
                 ("malformed: non-zero, no message", str(r["silent"])),
                 ("malformed: free-text lines accepted", f"{r['edge_ok']} / {r['edge']}"),
                 ("malformed: store afterwards", f"integrity {r['integrity']}, status {r['status']}")]
    width = max(len(k) for k, _ in rows)
    print()
    print(f"{'measure':<{width}}  result")
    print(f"{'-' * width}  {'-' * 40}")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


phase, rest = sys.argv[1], sys.argv[2:]
if phase == "table":
    table(*rest)
else:
    {"load": load, "kill": kill, "malformed": malformed}[phase](*rest)
PY
}

main() {
  parse_args "$@"
  unset CUDABRIDGE_DB  # it would take precedence over the temporary CUDABRIDGE_HOME
  make_scratch
  # Even the version line is read against a throwaway store, never the user's.
  export CUDABRIDGE_HOME=$scratch/version-home
  local version
  version=$("$cli" version 2>/dev/null | head -n 1 || true)
  echo "soak: $cli (${version:-version unknown})" >&2
  echo "soak: load, $load_processes processes x $seconds s ..." >&2
  run_phase load "$seconds" "$load_processes"
  echo "soak: kill -9 during log writes, $kill_attempts attempts ..." >&2
  run_phase kill "$kill_attempts"
  echo "soak: malformed command lines ..." >&2
  run_phase malformed "$scratch/work"
  soak_py table "$scratch/results"
}

main "$@"
