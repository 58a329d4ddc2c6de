#!/usr/bin/env bash
# Many cudabridge-cli processes on one store at once: PROCS workers run a mix of status, info,
# config set, log write, connect and disconnect for SECONDS each. Afterwards the store must pass
# PRAGMA integrity_check, every acknowledged write (a config set or log write that exited 0) must
# be in it, and no command may have reported a damaged database.
#   usage: cli_store_stress.sh CLI [SECONDS] [PROCS]
set -uo pipefail
cli=$1 seconds=${2:-30} procs=${3:-8}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export CUDABRIDGE_HOME=$home XDG_STATE_HOME=$home
db=$home/cudabridge.db
fail() { echo "cli_store_stress: FAIL: $*" >&2; exit 1; }

"$cli" connect >/dev/null 2>"$home/connect.err" || fail "first connect: $(cat "$home/connect.err")"

# One worker: a fixed rotation of commands, so every worker writes and every kind of command
# overlaps with every other.
worker() {
    local id=$1 i=0 end=$((SECONDS + seconds))
    while ((SECONDS < end)); do
        i=$((i + 1))
        case $((i % 6)) in
        0) "$cli" status ;;
        1) "$cli" info --section product ;;
        2) local v=$((1000000 + id * 100000 + i))
           "$cli" config set store.events_max_rows "$v" && echo "$v" >>"$home/acked_settings" ;;
        3) "$cli" log write "stress-$id-$i" && echo "stress-$id-$i" >>"$home/acked_logs" ;;
        4) "$cli" connect ;;
        5) "$cli" disconnect ;;
        esac >/dev/null 2>>"$home/worker$id.err"
        echo "$i" >"$home/worker$id.count"
    done
}

for ((k = 0; k < procs; k++)); do worker "$k" & done
wait

commands=0
for ((k = 0; k < procs; k++)); do commands=$((commands + $(cat "$home/worker$k.count"))); done
cat "$home"/worker*.err >"$home/all.err"
if grep -Eiq 'malformed|corrupt|not a database|disk I/O' "$home/all.err"; then
    grep -Ei 'malformed|corrupt|not a database|disk I/O' "$home/all.err" | head -5 >&2
    fail "a command reported a damaged store"
fi

check=$(sqlite3 "$db" 'PRAGMA integrity_check')
[[ "$check" == ok ]] || fail "integrity_check: $check"

settings=$(wc -l <"$home/acked_settings") logs=$(wc -l <"$home/acked_logs")
((settings > 0 && logs > 0)) || fail "no write was acknowledged ($settings settings, $logs logs)"
sqlite3 "$db" "SELECT new_value FROM settings_history WHERE key = 'store.events_max_rows'" |
    sort -u >"$home/stored_settings"
sqlite3 "$db" "SELECT message FROM logs WHERE message LIKE 'stress-%'" | sort -u >"$home/stored_logs"
missing_settings=$(sort -u "$home/acked_settings" | comm -23 - "$home/stored_settings" | wc -l)
missing_logs=$(sort -u "$home/acked_logs" | comm -23 - "$home/stored_logs" | wc -l)
((missing_settings == 0)) || fail "$missing_settings acknowledged settings are missing"
((missing_logs == 0)) || fail "$missing_logs acknowledged log records are missing"
"$cli" status >/dev/null 2>"$home/last.err" || [[ $? == 3 ]] || fail "status afterwards: $(cat "$home/last.err")"
echo "cli_store_stress: $procs processes x ${seconds}s: $commands commands," \
    "$settings settings and $logs log records acknowledged, all stored; integrity ok"
