#!/usr/bin/env bash
# sdk_examples_test.sh BUILD_DIR CMAKE: installs into a temporary prefix, builds each SDK example
# (sdk/examples/*) and one `plugins new` project per kind out of tree against it, each with its
# own CMake invocation, and shows them working through the installed CLI:
#   csv_sink      a log record goes to the CSV file, quoted per RFC 4180;
#   conservative  its 80 C thermal limit is the one shown, and a device that stops answering,
#                 which the standard policy resets back to work, it marks failed and refuses;
#   loopback      the benchmark's copies travel through it and read back what was written;
#   plugins new   every generated project builds and passes `plugins verify`.
set -euo pipefail
build=$1
cmake=$2
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/cudabridge-sdk-examples-XXXXXX)
monitor_pid= user_pid=  # the background monitor and program of the safety runs, while they run
trap '[[ -n $monitor_pid ]] && kill "$monitor_pid" 2>/dev/null; [[ -n $user_pid ]] && kill "$user_pid" 2>/dev/null
rm -rf "$work"' EXIT
prefix=$work/prefix
home=$work/home
mkdir -p "$home"

fail() { echo "FAIL: $*" >&2; exit 1; }
# The installed CLI with nothing of the caller's environment: its own home, store and state.
cli() { env -i HOME="$home" PATH=/usr/bin:/bin "$prefix/bin/cudabridge-cli" --db "$home/cb.db" "$@"; }
# build_project SOURCE BUILD: a separate CMake configure and build against the prefix only.
build_project() {
  { "$cmake" -S "$1" -B "$2" -DCMAKE_PREFIX_PATH="$prefix" && "$cmake" --build "$2"; } >"$2.log" 2>&1 \
    || { cat "$2.log" >&2; fail "building $1 against the installed SDK"; }
}
json() { /usr/bin/python3 -c "import json, sys; d = json.load(sys.stdin); $1"; }

"$cmake" --install "$build" --prefix "$prefix" >/dev/null
[[ -s $prefix/share/man/man1/cudabridge-cli.1 ]] || fail "the install has no manual page"
# Log to the store only, so no file sink writes outside the temporary tree.
cli config set log.sinks sqlite >/dev/null

python_path=$(find "$prefix" -type d -name cudabridge -path '*-packages/*' -printf '%h\n' | head -n 1)
[[ -n $python_path ]] || fail "the install has no Python package"

examples=$work/examples
mkdir -p "$examples"
for example in csv_sink conservative loopback; do
  build_project "$source_dir/sdk/examples/$example" "$examples/$example"
done
for lib in csv_sink/libcsv_sink.so conservative/libconservative_policy.so loopback/libloopback_transport.so; do
  cli plugins verify "$examples/$lib" >/dev/null || fail "plugins verify refused $lib"
done

# --- csv_sink: a record with a comma, quotes and a line break comes back field for field -------
csv=$home/out/records.csv
message=$'copy done, 4 MiB "checked"\nsecond line'
cli --plugin-path "$examples/csv_sink" --log-sink "csv:path=$csv" log write --level WARN --category DRIVER "$message" \
  || fail "log write through the csv sink"
[[ -s "$csv" ]] || fail "the csv sink wrote no file at $csv"
grep -q $'\r$' "$csv" || fail "csv rows do not end with CRLF"
grep -qF '"copy done, 4 MiB ""checked""' "$csv" || fail "the message is not quoted per RFC 4180: $(cat "$csv")"
MESSAGE="$message" /usr/bin/python3 - "$csv" <<'EOF' || fail "the csv file does not hold the record"
import csv, os, re, sys
with open(sys.argv[1], newline="") as f:
    rows = list(csv.reader(f))
assert rows[0] == ["time", "time_ns", "level", "category", "thread", "device", "message"], rows[0]
mine = [r for r in rows[1:] if r[6] == os.environ["MESSAGE"]]
assert len(mine) == 1, rows
time, time_ns, level, category, thread, device, _ = mine[0]
assert (level, category, device) == ("WARN", "DRIVER", ""), mine[0]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z", time), time
assert time.endswith("%09dZ" % (int(time_ns) % 10**9)) and int(thread) > 0, mine[0]
EOF

# --- conservative: the same fault under both policies ------------------------------------------
# A program (Python, through the installed package) uses a connected eGPU under the policy while
# `monitor` watches it, and another process makes the simulated device stop answering (`sim fault
# stuck`, posted to every process's links). The program's supervisor sees the device lost on a
# live link: the standard policy resets it and it recovers, for the watcher too; the
# conservative one marks it failed, which every process then refuses, and leaves it to a person.
# Each run plugs its own enclosure, so the events of the two runs stay apart, and samples every
# 250 ms to keep the test short.
fault_run() {  # POLICY THERMAL_LIMIT -> run_id: the enclosure it plugged
  local policy=$1 id out=$work/monitor-$1.jsonl
  local with=(--plugin-path "$examples/conservative" --safety "$policy")
  id=$(cli --json sim plug rtx-5090 --name "fault drill ($policy)" | json 'print(d["plugged"])')
  cli "${with[@]}" connect "$id" >/dev/null || fail "connect under the $policy policy"
  cli config set "$policy.heartbeat_interval_ms" 250 >/dev/null
  cli "${with[@]}" --json info | json "
l = d['devices'][0]['temperature']['safety_limit_c']
assert l == $2, l" || fail "info does not show the $policy policy's thermal limit ($2 C)"
  # The program: attached for 6 s under the policy, its supervisor sampling every 250 ms.
  env -i HOME="$home" PATH=/usr/bin:/bin PYTHONPATH="$python_path" CUDABRIDGE_DB="$home/cb.db" \
    CUDABRIDGE_ADD_PLUGIN_PATH="$examples/conservative" CUDABRIDGE_SAFETY="$policy" /usr/bin/python3 -c '
import time, cudabridge as cb
cb.init(autoconnect=False)
print("attached", flush=True)
time.sleep(6)' >"$work/user-$policy.log" 2>&1 &
  user_pid=$!
  cli "${with[@]}" --json monitor -i 250 -c 20 >"$out" 2>"$out.err" &
  monitor_pid=$!
  # Attached once it printed a good sample; the fault must come after, or the attach would fail.
  for _ in $(seq 100); do grep -q '"ok":true' "$out" && break; sleep 0.1; done
  grep -q '"ok":true' "$out" || fail "monitor under the $policy policy did not attach: $(cat "$out.err")"
  for _ in $(seq 100); do grep -q attached "$work/user-$policy.log" && break; sleep 0.1; done
  grep -q attached "$work/user-$policy.log" || fail "the program under the $policy policy did not attach: $(cat "$work/user-$policy.log")"
  cli sim fault stuck >/dev/null || fail "sim fault stuck"
  wait "$monitor_pid" || true  # a failed device may end the monitor early
  monitor_pid=
  wait "$user_pid" || fail "the program under the $policy policy: $(cat "$work/user-$policy.log")"
  user_pid=
  cli sim fault clear >/dev/null
  cli "${with[@]}" disconnect >/dev/null || fail "disconnect after the $policy run"
  run_id=$id
}
events() {  # ENCLOSURE_ID KIND -> how many the history holds
  cli --json history --device-id "$1" --kind "$2" | json 'print(len(d["events"]))'
}
fault_run standard 90
standard_id=$run_id
fault_run conservative 80
conservative_id=$run_id
[[ $(events "$standard_id" safety.hard_reset) -ge 1 ]] || fail "the standard policy did not reset the stuck device"
[[ $(events "$standard_id" safety.mark_failed) == 0 ]] || fail "the standard policy gave up on the stuck device"
[[ $(events "$conservative_id" safety.mark_failed) -ge 1 ]] || fail "the conservative policy did not mark the stuck device failed"
for kind in safety.soft_reset safety.hard_reset safety.reconnect safety.resume; do
  [[ $(events "$conservative_id" "$kind") == 0 ]] || fail "the conservative policy recovered on its own ($kind)"
done
failures=$(cli --json history --device-id "$conservative_id" --kind safety.mark_failed)
[[ $failures == *"instead of recovering automatically"* ]] || fail "the failure does not give the conservative policy's reason"
# What the watcher saw last: the standard policy's device back at work, the
# conservative one's refusing it.
last_sample() { tail -n 1 "$work/monitor-$1.jsonl" | json "$2"; }
last_sample standard 'assert d["ok"], d' || fail "the device did not come back under the standard policy"
last_sample conservative 'assert not d["ok"] and "marked failed" in d["error"], d' \
  || fail "the device under the conservative policy did not stay failed"

# --- loopback: copies go through it and come back as written ------------------------------------
lb=(--plugin-path "$examples/loopback" --transport loopback)
cli "${lb[@]}" --json devices | json '
e = d["devices"][0]
assert e["id"] == "loopback0", e
assert e["pci_functions"][0]["vendor_id"] in (0x10de, "0x10de"), e' || fail "the loopback shows no GPU behind its enclosure"
cli "${lb[@]}" connect >/dev/null || fail "connect over the loopback"
cli "${lb[@]}" --json info | json '
b = d["devices"][0]["backend"]
assert b["transport_plugin"] == "loopback", b' || fail "the connected device is not on the loopback"
cli "${lb[@]}" --json benchmark --quick >"$work/benchmark.json" || fail "benchmark over the loopback"
json '
copies = [f for f in d["figures"] if f["group"] == "transfer"]
names = {f["name"] for f in copies}
assert {"h2d_pageable", "d2h_pageable", "h2d_pinned", "d2h_pinned"} <= names, names
assert all(f["verified"] for f in copies), [f for f in copies if not f["verified"]]
assert all(f["wall"] > 0 for f in copies)' <"$work/benchmark.json" || fail "the loopback's copies did not round-trip"
cli "${lb[@]}" disconnect >/dev/null || fail "disconnect from the loopback"

# --- plugins new: one project per kind, built and verified ---------------------------------------
mkdir -p "$work/new"
for kind in logsink safety transport gpu; do
  said=$(cd "$work/new" && env -i HOME="$home" PATH=/usr/bin:/bin "$prefix/bin/cudabridge-cli" --db "$home/cb.db" \
    plugins new "$kind" "my_$kind") || fail "plugins new $kind"
  [[ -f "$work/new/my_$kind/my_$kind.cpp" ]] || fail "plugins new $kind wrote no ./my_$kind folder"
  grep -qF -- "-DCMAKE_PREFIX_PATH=$prefix" <<<"$said" || fail "plugins new does not name the install prefix: $said"
  build_project "$work/new/my_$kind" "$work/new/my_$kind/build"
  cli plugins verify "$work/new/my_$kind/build/libmy_$kind.so" >/dev/null || fail "plugins verify refused the new $kind"
done
cli --plugin-path "$work/new/my_logsink/build" --log-sink "my_logsink:path=$home/out/new.log" \
  log write --category CLI "from a new project" || fail "log write through the new log sink"
grep -q "INFO CLI from a new project" "$home/out/new.log" || fail "the new log sink wrote no line"
cli plugins new logsink again "$work/new/my_logsink" 2>/dev/null && fail "plugins new wrote into a folder that is not empty"

echo "sdk examples against $prefix: ok"
