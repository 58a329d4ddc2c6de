"""`cudabridge-cli exporter` started for a test: on a port the system picks, its stderr drained so
that its pipe never fills. Shared by exporter_scrape_test.py and fault_drills_test.py."""
import queue
import subprocess
import threading


def start_exporter(cli, wait_s):
    """The exporter of `cli` (an object with .args(*words) and .env); returns (process, base URL)."""
    p = subprocess.Popen(cli.args("exporter", "--listen", "127.0.0.1:0"), env=cli.env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in p.stdout], daemon=True).start()
    try:
        first = lines.get(timeout=wait_s)
    except queue.Empty:
        first = ""
    marker = "Serving http://"
    if marker not in first:
        p.kill()
        raise RuntimeError("the exporter did not start: %r %s" % (first, p.stderr.read()))
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    return p, "http://" + first.split(marker, 1)[1].split("/metrics", 1)[0]
