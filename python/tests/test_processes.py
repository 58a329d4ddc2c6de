"""The eGPU's process table, as nvidia-smi users expect it: every process using the device is
listed by `cudabridge-cli info` with the device memory it holds; memory sums over them; a process
that exits, even by kill -9, leaves the table; and `disconnect` refuses while another process
has work queued, unless forced."""
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from egpu_homes import cli, run_cli

MIB = 1 << 20

# A kernel that counts to n: seconds of queued work on the simulated GPU, whatever the machine.
SPIN_PTX = r"""
.version 7.0
.target sm_75
.address_size 64
.visible .entry spin(.param .u64 n, .param .u64 out)
{
    .reg .pred %p;
    .reg .b64 %r<5>;
    ld.param.u64 %r1, [n];
    ld.param.u64 %r2, [out];
    cvta.to.global.u64 %r2, %r2;
    mov.u64 %r3, 0;
    mov.u64 %r4, 0;
LOOP:
    setp.ge.u64 %p, %r3, %r1;
    @%p bra DONE;
    xor.b64 %r4, %r4, %r3;
    add.u64 %r4, %r4, 7;
    add.u64 %r3, %r3, 1;
    bra LOOP;
DONE:
    st.global.u64 [%r2], %r4;
    ret;
}
"""

# A process that holds `bytes` of device memory (and with spin, queues long work) until its
# standard input closes.
WORKER = r"""
import sys
import numpy as np
import cudabridge as cb
nbytes, spin = int(sys.argv[1]), sys.argv[2] == "spin"
cb.init()
held = cb.zeros(nbytes // 4, dtype=np.float32)
cb.synchronize()
if spin:
    out = cb.zeros(1, dtype=np.uint64)
    kernel = cb.RawKernel(sys.argv[3], "spin")
    for _ in range(20):
        kernel((1,), (1,), (np.uint64(1 << 31), out))
print("ready", flush=True)
if sys.argv[2] == "busy":  # keeps using the device, through link drops, until told to stop
    import select
    while not select.select([sys.stdin], [], [], 0.05)[0]:
        try:
            (held + 1).sum()
        except cb.Error:
            held = cb.zeros(nbytes // 4, dtype=np.float32)  # lost with the link: allocate again
    sys.exit(0)
sys.stdin.read()
"""


@contextlib.contextmanager
def home_with_one_egpu():
    env = {"CUDABRIDGE_HOME": tempfile.mkdtemp(prefix="cudabridge-processes-"), "CUDABRIDGE_LOG_SINKS": "file,sqlite"}
    try:
        run_cli(env, "connect")
        yield env
    finally:
        subprocess.run([cli(), "disconnect", "--force"], env=dict(os.environ, **env), capture_output=True, timeout=120)
        shutil.rmtree(env["CUDABRIDGE_HOME"], ignore_errors=True)


@contextlib.contextmanager
def workers(env, sizes, mode="hold"):
    procs = []
    try:
        for size in sizes:
            p = subprocess.Popen([sys.executable, "-c", WORKER, str(size), mode, SPIN_PTX],
                                 env=dict(os.environ, **env), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)
            procs.append(p)
        for p in procs:
            assert p.stdout.readline().strip() == "ready", "a worker did not start"
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=60)


def info(env):
    device = json.loads(run_cli(env, "--json", "info"))["devices"][0]
    return device["memory"], {row["pid"]: row for row in device["processes"]}


def test_info_lists_every_process_with_its_memory_and_memory_sums_over_them():
    sizes = [64 * MIB, 128 * MIB, 256 * MIB]
    with home_with_one_egpu() as env, workers(env, sizes) as procs:
        memory, rows = info(env)
        assert set(rows) == {p.pid for p in procs}
        for p, size in zip(procs, sizes):
            row = rows[p.pid]
            assert row["type"] == "C" and row["name"]
            assert size <= row["used_memory_bytes"] < size + 2 * MIB
        assert memory["used_bytes"] == sum(row["used_memory_bytes"] for row in rows.values())
        assert memory["free_bytes"] == memory["total_bytes"] - memory["used_bytes"]

        # nvidia-smi --query-compute-apps, field names and CSV shape as nvidia-smi has them.
        apps = run_cli(env, "query", "--query-compute-apps=pid,process_name,used_memory", "--format=csv").splitlines()
        assert apps[0] == "pid, process_name, used_gpu_memory [MiB]"
        listed = {int(line.split(", ")[0]): line.split(", ") for line in apps[1:]}
        assert set(listed) == {p.pid for p in procs}
        for p, size in zip(procs, sizes):
            assert listed[p.pid][2] == f"{rows[p.pid]['used_memory_bytes'] // MIB} MiB"

        # kill -9: no chance to detach, yet it leaves the table and its memory is free again.
        procs[1].send_signal(signal.SIGKILL)
        procs[1].wait(timeout=60)
        procs[0].stdin.close()  # and one that exits on its own
        procs[0].wait(timeout=60)
        memory, rows = info(env)
        assert set(rows) == {procs[2].pid}
        assert memory["used_bytes"] == rows[procs[2].pid]["used_memory_bytes"]


def test_info_shows_memory_in_mib_and_the_processes_section():
    with home_with_one_egpu() as env, workers(env, [32 * MIB]) as procs:
        text = run_cli(env, "info", "--section", "memory,processes")
        assert "MiB" in text and "(bytes)" not in text
        assert f"Process ID                        : {procs[0].pid}" in text
        assert "Used GPU Memory" in text


def test_an_observer_is_not_a_process_of_the_device():
    with home_with_one_egpu() as env:
        run_cli(env, "status")
        _, rows = info(env)
        assert rows == {}


def test_disconnect_refuses_while_another_process_has_work_queued_unless_forced():
    with home_with_one_egpu() as env, workers(env, [16 * MIB], mode="spin") as procs:
        r = subprocess.run([cli(), "--json", "disconnect", "--timeout", "500"], env=dict(os.environ, **env), capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 5, r.stdout + r.stderr
        report = json.loads(r.stdout)
        assert report["refused"] and not report["disconnected"]
        assert [row["pid"] for row in report["processes"]] == [procs[0].pid]
        assert report["processes"][0]["queued_commands"] > 0
        run_cli(env, "status")  # still connected

        r = subprocess.run([cli(), "disconnect", "--force"], env=dict(os.environ, **env), capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        assert str(procs[0].pid) in r.stdout


def test_a_link_drop_is_counted_in_query_and_monitor_whichever_process_saw_it():
    with home_with_one_egpu() as env, workers(env, [4 * MIB], mode="busy"):
        run_cli(env, "sim", "fault", "link-drop", "500")
        # The worker's supervisor notices at its next heartbeat; this process only reads.
        for _ in range(600):
            drops = run_cli(env, "query", "--query-gpu=link.drops,link.recoveries", "--format=csv,noheader")
            if drops.strip().startswith("1,"):
                break
            time.sleep(0.1)
        assert drops.strip().split(", ")[0] == "1", drops
        sample = json.loads(run_cli(env, "--json", "monitor", "-c", "1").splitlines()[0])
        assert sample["link_drops"] == 1
        assert sample["recoveries"] >= 1  # the worker's policy reconnected
        assert "link_drops" in run_cli(env, "monitor", "--csv", "-c", "1").splitlines()[0]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
