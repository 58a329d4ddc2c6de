#!/usr/bin/python3
"""`cudabridge-cli exporter`: a real HTTP scrape of /metrics, parsed with the Prometheus client
library's own parser, checked against what `query` reports; 404 for other paths; a clean stop on
SIGTERM; refusals for a bad --listen; serving with no eGPU until one is connected.

Usage: exporter_scrape_test.py CUDABRIDGE_CLI
Exit 0 when every check passes, 1 on a failure, 77 (skipped) without python3-prometheus-client.
Nothing here depends on timing: waits poll with generous limits, and figures that move between
readings are checked to lie between a query just before and one just after the scrape.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("python3-prometheus-client is not installed (scripts/install-deps.sh installs it): skipped")
    sys.exit(77)

from exporter_process import start_exporter  # noqa: E402 - after the skip check

CLI = sys.argv[1] if len(sys.argv) > 1 else "cudabridge-cli"
WAIT_S = 120
FIELDS = [
    "index", "name", "uuid", "pci.bus_id", "memory.total", "memory.used", "memory.free", "power.limit",
    "clocks.sm", "clocks.mem", "utilization.gpu", "utilization.memory", "pstate", "temperature.gpu",
    "power.draw", "fan.speed", "link.replays", "link.crc_errors", "link.packets", "link.recoveries",
    "safety.state", "safety.interventions",
]

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


class Cli:
    def __init__(self, folder):
        self.db = os.path.join(folder, "cb.db")
        self.env = dict(os.environ)
        for name in ("CUDABRIDGE_PLUGIN_PATH", "CUDABRIDGE_ADD_PLUGIN_PATH", "CUDABRIDGE_HOME", "NO_COLOR"):
            self.env.pop(name, None)
        self.env.update(HOME=folder, XDG_STATE_HOME=os.path.join(folder, "state"),
                        XDG_DATA_HOME=os.path.join(folder, "data"))

    def args(self, *args):
        return [CLI, "--db", self.db, *args]

    def run(self, *args):
        return subprocess.run(self.args(*args), env=self.env, capture_output=True, text=True, timeout=600)

    def query(self):
        r = self.run("query", "--gpu=" + ",".join(FIELDS), "--format=json")
        if r.returncode != 0:
            raise RuntimeError("query failed (%d): %s" % (r.returncode, r.stderr))
        return json.loads(r.stdout)["devices"][0]["values"]


def samples_by_family(text):
    """The families, and their samples by family name (the parser names a counter's family without
    its _total, and gives a counter's samples a _total name even where the text has none, as
    DCGM_FI_DEV_PCIE_REPLAY_COUNTER)."""
    families = list(text_string_to_metric_families(text))
    return families, {f.name: list(f.samples) for f in families}


def between(value, before, after, slack):
    return min(before, after) - slack <= value <= max(before, after) + slack


def main():
    with tempfile.TemporaryDirectory() as folder:
        cli = Cli(folder)
        # Started with no eGPU connected, the exporter serves all the same (as dcgm-exporter keeps
        # serving with no GPU) and finds the eGPU a later connect brings.
        early, early_base = start_exporter(cli, WAIT_S)
        try:
            with urllib.request.urlopen(early_base + "/metrics", timeout=WAIT_S) as response:
                _, none_yet = samples_by_family(response.read().decode("utf-8"))
            counted = [s.value for s in none_yet.get("cudabridge_egpus", [])]
            check(counted == [0], "with no eGPU connected: cudabridge_egpus 0 (%s)" % counted)
            check(not none_yet.get("DCGM_FI_DEV_GPU_TEMP"), "and no GPU's samples")
            r = cli.run("connect")
            if r.returncode != 0:
                print("FAIL: connect:", r.stderr)
                return 1
            with urllib.request.urlopen(early_base + "/metrics", timeout=WAIT_S) as response:
                _, found = samples_by_family(response.read().decode("utf-8"))
            check([s.value for s in found.get("cudabridge_egpus", [])] == [1],
                  "the next scrape after connect reads the eGPU")
            check(len(found.get("DCGM_FI_DEV_GPU_TEMP", [])) == 1, "with its temperature")
        finally:
            early.terminate()
            early.wait(WAIT_S)
        proc = None
        try:
            for bad, says in (("9400", "has no port"), ("127.0.0.1:70000", "the port must be"),
                              ("::1:9400", "in brackets")):
                r = cli.run("exporter", "--listen", bad)
                check(r.returncode == 2 and says in r.stderr,
                      "--listen %s exits 2 naming the mistake (got %d: %s)" % (bad, r.returncode, r.stderr))

            proc, base = start_exporter(cli, WAIT_S)
            before = cli.query()
            with urllib.request.urlopen(base + "/metrics", timeout=WAIT_S) as response:
                check(response.status == 200, "/metrics answers 200")
                check(response.headers.get_content_type() == "text/plain", "/metrics is text/plain")
                text = response.read().decode("utf-8")
            after = cli.query()

            families, samples = samples_by_family(text)
            names = {f.name for f in families}
            for f in families:
                check(bool(f.documentation), "%s has a # HELP line" % f.name)
                check(f.type in ("gauge", "counter"), "%s has a # TYPE line (%s)" % (f.name, f.type))
            for required in ("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_FB_USED",
                             "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL",
                             "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                             "cudabridge_link_crc_errors", "cudabridge_link_replays", "cudabridge_link_recoveries",
                             "cudabridge_link_up", "cudabridge_safety_state", "cudabridge_safety_interventions",
                             "cudabridge_gpu_modeled", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE",
                             "DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES", "cudabridge_link_bytes",
                             "cudabridge_process_memory_bytes", "cudabridge_process_queued_commands"):
                check(required in names, "family %s is served" % required)

            def one(name):
                got = samples.get(name, [])
                check(len(got) == 1, "one %s sample for the one GPU (got %d)" % (name, len(got)))
                return got[0] if got else None

            # DCGM's profiling ratios are the utilizations over 100; the PCIe rates need two scrapes.
            active = one("DCGM_FI_PROF_GR_ENGINE_ACTIVE") if "DCGM_FI_PROF_GR_ENGINE_ACTIVE" in names else None
            if active is not None:
                check(between(active.value * 100, before["utilization.gpu"], after["utilization.gpu"], 0),
                      "GR_ENGINE_ACTIVE %s is utilization.gpu / 100" % active.value)
            check(not samples.get("DCGM_FI_PROF_PCIE_TX_BYTES"), "no PCIe rate before a second scrape")
            directions = {s.labels["direction"] for s in samples.get("cudabridge_link_bytes", [])}
            check(directions == {"h2d", "d2h"}, "link bytes in both directions (%s)" % directions)

            temp = one("DCGM_FI_DEV_GPU_TEMP")
            if temp is not None:
                labels = temp.labels
                check(labels.get("gpu") == str(before["index"]), "gpu label is the index")
                check(labels.get("UUID") == before["uuid"], "UUID label is query's uuid")
                check(labels.get("modelName") == before["name"], "modelName label is query's name")
                check(labels.get("pci_bus_id") == before["pci.bus_id"], "pci_bus_id label is query's pci.bus_id")
                check(labels.get("device") == "nvidia%d" % before["index"], "device label as dcgm-exporter forms it")
                check(bool(labels.get("Hostname")), "Hostname label is set")
                check(between(temp.value, before["temperature.gpu"], after["temperature.gpu"], 1),
                      "GPU temperature %s lies between the queries' %s and %s"
                      % (temp.value, before["temperature.gpu"], after["temperature.gpu"]))

            # Figures that do not move on an idle GPU: the same as query's.
            exact = {"DCGM_FI_DEV_FB_USED": "memory.used", "DCGM_FI_DEV_FB_FREE": "memory.free",
                     "DCGM_FI_DEV_FB_TOTAL": "memory.total", "DCGM_FI_DEV_POWER_MGMT_LIMIT": "power.limit"}
            for metric, field in exact.items():
                s = one(metric)
                if s is not None:
                    check(s.value == before[field] == after[field],
                          "%s %s equals query's %s %s" % (metric, s.value, field, before[field]))
            # Figures that may move: between the two queries.
            moving = {"DCGM_FI_DEV_POWER_USAGE": ("power.draw", 0.01), "DCGM_FI_DEV_SM_CLOCK": ("clocks.sm", 0),
                      "DCGM_FI_DEV_MEM_CLOCK": ("clocks.mem", 0), "DCGM_FI_DEV_GPU_UTIL": ("utilization.gpu", 0),
                      "DCGM_FI_DEV_MEM_COPY_UTIL": ("utilization.memory", 0),
                      "DCGM_FI_DEV_PCIE_REPLAY_COUNTER": ("link.replays", 0),
                      "cudabridge_link_replays": ("link.replays", 0),
                      "cudabridge_link_crc_errors": ("link.crc_errors", 0),
                      "cudabridge_link_packets": ("link.packets", 0),
                      "cudabridge_link_recoveries": ("link.recoveries", 0)}
            for metric, (field, slack) in moving.items():
                s = one(metric)
                if s is not None:
                    check(between(s.value, before[field], after[field], slack),
                          "%s %s lies between query's %s %s and %s" % (metric, s.value, field, before[field],
                                                                       after[field]))
            if before["fan.speed"] is not None:
                s = one("DCGM_FI_DEV_FAN_SPEED")
                if s is not None:
                    check(between(s.value, before["fan.speed"], after["fan.speed"], 0), "fan speed as query's")
            s = one("DCGM_FI_DEV_PSTATE")
            if s is not None:
                check("P%d" % s.value in (before["pstate"], after["pstate"]), "P-state as query's")
            modeled = one("cudabridge_gpu_modeled")
            check(modeled is not None and modeled.value == 1, "a simulated GPU's figures are marked modeled")

            states = {s.labels["state"]: s.value for s in samples.get("cudabridge_safety_state", [])}
            check(states.get(before["safety.state"]) == 1 and sum(states.values()) == 1,
                  "cudabridge_safety_state is 1 for query's state %s only: %s" % (before["safety.state"], states))
            interventions = sum(s.value for s in samples.get("cudabridge_safety_interventions", []))
            check(between(interventions, before["safety.interventions"], after["safety.interventions"], 0),
                  "interventions %s as query's %s" % (interventions, before["safety.interventions"]))

            # Scrapes record nothing: the store's history is the same after three more.
            def event_count():
                r = cli.run("history", "-n", "1000000", "--json")
                check(r.returncode == 0, "history runs (%s)" % r.stderr)
                return len(json.loads(r.stdout)["events"]) if r.returncode == 0 else -1

            events_before = event_count()
            for _ in range(3):
                with urllib.request.urlopen(base + "/metrics", timeout=WAIT_S) as response:
                    check(response.status == 200, "a further scrape answers 200")
            events_after = event_count()
            with urllib.request.urlopen(base + "/metrics", timeout=WAIT_S) as response:
                _, later = samples_by_family(response.read().decode("utf-8"))
            for rate in ("DCGM_FI_PROF_PCIE_TX_BYTES", "DCGM_FI_PROF_PCIE_RX_BYTES"):
                got = later.get(rate, [])
                check(len(got) == 1 and got[0].value >= 0, "%s after more scrapes: %s" % (rate, got))
            check(events_before == events_after,
                  "scrapes record no events (%d before, %d after)" % (events_before, events_after))

            try:
                urllib.request.urlopen(base + "/nothing-here", timeout=WAIT_S)
                check(False, "/nothing-here answers 404")
            except urllib.error.HTTPError as e:
                check(e.code == 404, "/nothing-here answers 404 (got %d)" % e.code)

            # Disconnected by another process: the exporter keeps answering, says the GPU gives no
            # telemetry and is lost, and leaves out the GPU's own figures.
            r = cli.run("disconnect", "--force")
            check(r.returncode == 0, "disconnect from another process (%s)" % r.stderr)
            with urllib.request.urlopen(base + "/metrics", timeout=WAIT_S) as response:
                check(response.status == 200, "a scrape after the disconnect answers 200")
                _, gone = samples_by_family(response.read().decode("utf-8"))
            available = [s.value for s in gone.get("cudabridge_gpu_telemetry_available", [])]
            check(available == [0], "telemetry available is 0 after the disconnect (%s)" % available)
            lost = {s.labels["state"]: s.value for s in gone.get("cudabridge_safety_state", [])}
            check(lost.get("lost") == 1 and sum(lost.values()) == 1, "the state is lost: %s" % lost)
            check(not gone.get("DCGM_FI_DEV_GPU_TEMP"), "no temperature for a GPU that was not read")

            proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout=WAIT_S)
                check(code == 0, "SIGTERM stops the exporter with exit code 0 (got %d)" % code)
            except subprocess.TimeoutExpired:
                check(False, "the exporter stops on SIGTERM")
        finally:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
            cli.run("disconnect", "--force")
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("exporter scrape: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
