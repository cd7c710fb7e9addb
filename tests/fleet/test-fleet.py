#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The trend rules on a simulated fleet, in a real Prometheus and a real
VictoriaMetrics, both on loopback:

    test-fleet.py RULES_FILE [--dashboards DIR] [--boards N] [--days D] [--seed S]

fleet.py writes D days of N boards (a sample every 5 minutes), in spans of
54 hours; `promtool tsdb create-blocks-from openmetrics` backfills each span
(blocks of 54 h, none overlapping) and VictoriaMetrics imports it. A
Prometheus started on those blocks with the rules (the jmem-trends group
evaluated every 10 s instead of 5 min, so that the test need not wait)
remote-writes what it records into VictoriaMetrics. Then:

- the recorded fleet views and the pending trend alerts name exactly the
  leaking boards (and processes) fleet.py planted, and the counts by L4T
  release match;
- the same views queried without recording rules (each recorded name
  replaced by its expression), at the last sample, find the same boards in
  Prometheus and in VictoriaMetrics;
- the series Prometheus recorded reach VictoriaMetrics by remote write;
- every query of the Grafana dashboards in DIR (grafana/) answers with
  data, the one-board dashboard's for a leaking board.

Prints TAP, and as comments what it measured (samples, bytes, backfill and
import times, the query time of each view). Without promtool or prometheus
it skips; without victoria-metrics the VictoriaMetrics checks skip. The
suite runs a small fleet; tests/bench/bench-fleet runs 1,000 boards for 30
days.
"""
import argparse
import collections
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import json

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import scratch  # noqa: E402
import fleet  # noqa: E402

SPAN = 54 * 3600        # one backfill file, one block
TREND_GROUP = "jmem-trends"
# the views the test checks: record -> what fleet.expected() calls its boards
VIEWS = {
    "instance:jmem_memory_unexplained_bytes:growing": "unexplained",
    "instance:jmem_nvmap_total_bytes:growing": "nvmap",
    "instance:jmem_allocatable_reclaim_bytes:exhaustion_predicted_7d": "exhaustion",
    "instance:jmem_process_footprint_bytes:top3_growing": "processes",
}
ALERTS = {
    "JmemUnexplainedMemoryGrowing": "unexplained",
    "JmemNvMapGrowing": "nvmap",
    "JmemMemoryExhaustionPredicted": "exhaustion",
}
COUNTS = {
    "jmem:boards_unexplained_growing:count": "unexplained",
    "jmem:boards_nvmap_growing:count": "nvmap",
    "jmem:boards_exhaustion_predicted_7d:count": "exhaustion",
}

results = []


def check(ok, what, detail=""):
    results.append(("ok" if ok else "not ok", what, "" if ok else detail))


def skip(what, why):
    results.append(("ok", what + " # SKIP " + why, ""))


def note(*what):
    print("#", *what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url, data=None, timeout=120):
    body = urllib.parse.urlencode(data).encode() if isinstance(data, dict) else data
    with urllib.request.urlopen(url, data=body, timeout=timeout) as resp:
        return resp.read()


class Server:
    """A program on loopback, in a session of its own (killed with the test)."""

    def __init__(self, name, argv, ready_url, log):
        self.name, self.log = name, open(log, "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        scratch.at_kill("kill", "-KILL", str(self.proc.pid))
        deadline = time.monotonic() + scratch.scaled(120)
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited (%d): %s" % (name, self.proc.returncode, tail(log)))
            try:
                http(ready_url, timeout=5)
                return
            except (OSError, urllib.error.HTTPError):
                if time.monotonic() > deadline:
                    raise RuntimeError("%s never answered %s: %s" % (name, ready_url, tail(log)))
                time.sleep(0.5)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=scratch.scaled(30))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def tail(path, lines=15):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def query(base, expr, at=None):
    """An instant query: (result, seconds it took)."""
    params = {"query": expr}
    if at is not None:
        params["time"] = str(at)
    began = time.monotonic()
    answer = json.loads(http(base + "/api/v1/query", params))
    took = time.monotonic() - began
    if answer.get("status") != "success":
        raise RuntimeError("%s: %s" % (expr, answer))
    return answer["data"]["result"], took


def boards(result, view):
    if view == "processes":
        return sorted((r["metric"].get("instance"), r["metric"].get("pid")) for r in result)
    return sorted(r["metric"].get("instance") for r in result)


def trend_rules(base):
    """The jmem-trends group's rules as Prometheus loaded them."""
    answer = json.loads(http(base + "/api/v1/rules"))
    for group in answer["data"]["groups"]:
        if group["name"] == TREND_GROUP:
            return group
    raise RuntimeError("no rule group " + TREND_GROUP)


def expanded(rules):
    """record -> its expression with every recorded name it reads replaced
    by that name's own expression: what a dashboard would run without the
    recording rules."""
    out = {}
    for rule in rules:
        if rule["type"] != "recording":
            continue
        expr = rule["query"]
        for name in sorted(out, key=len, reverse=True):
            expr = re.sub(r"(?<![\w:])%s(?![\w:])" % re.escape(name), "(%s)" % out[name], expr)
        out[rule["name"]] = expr
    return out


def backfill(args, tmp, plan, start, end, vm):
    """Writes the fleet span by span into Prometheus blocks (and VM)."""
    data = os.path.join(tmp, "prometheus")
    os.mkdir(data)
    samples = size = 0
    gen_s = backfill_s = import_s = 0.0
    span_start = start - start % SPAN
    while span_start <= end:
        lo, hi = max(start, span_start), min(end, span_start + SPAN - fleet.STEP)
        path = os.path.join(tmp, "span.om")
        began = time.monotonic()
        with open(path, "w") as out:
            samples += fleet.write_openmetrics(out, plan, lo, hi, args.seed)
        gen_s += time.monotonic() - began
        size += os.path.getsize(path)
        began = time.monotonic()
        r = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", "--quiet",
                            "--max-block-duration=54h", path, data],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        backfill_s += time.monotonic() - began
        if r.returncode != 0:
            raise RuntimeError("promtool backfill failed: " + r.stdout[-2000:])
        if vm is not None:
            began = time.monotonic()
            vm_import(vm, path)
            import_s += time.monotonic() - began
        os.unlink(path)
        span_start += SPAN
    note("fleet: %d boards, %d days, a sample every %d s: %d series, %d samples, %.1f MB of OpenMetrics"
         % (args.boards, args.days, fleet.STEP, samples * fleet.STEP // (end - start + fleet.STEP),
            samples, size / 1e6))
    note("written in %.1f s, backfilled by promtool in %.1f s (%.0f samples/s)%s"
         % (gen_s, backfill_s, samples / max(backfill_s, 1e-9),
            ", imported into VictoriaMetrics in %.1f s" % import_s if vm is not None else ""))
    du = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(data) for f in fs)
    note("Prometheus blocks: %.1f MB (%.2f bytes a sample)" % (du / 1e6, du / samples))
    return data


def vm_import(base, path):
    """/api/v1/import/prometheus takes the text format with timestamps in
    milliseconds: the OpenMetrics lines, their seconds made milliseconds."""
    chunk = []
    size = 0
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"#"):
                continue
            head, _, ts = line.rpartition(b" ")
            chunk.append(head + b" " + ts.rstrip(b"\n") + b"000\n")
            size += len(line)
            if size > 32 << 20:
                http(base + "/api/v1/import/prometheus", b"".join(chunk), timeout=600)
                chunk, size = [], 0
    if chunk:
        http(base + "/api/v1/import/prometheus", b"".join(chunk), timeout=600)


def wait_for(what, probe, seconds):
    deadline = time.monotonic() + scratch.scaled(seconds)
    while True:
        got = probe()
        if got:
            return got
        if time.monotonic() > deadline:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(1)


def timed(base, expr, at, repeat=3):
    """The result and the median time of `repeat` runs."""
    times, result = [], None
    for _ in range(repeat):
        result, took = query(base, expr, at)
        times.append(took)
    return result, statistics.median(times)


def run(args, tmp):
    now = int(time.time())
    end = now - now % fleet.STEP
    start = end - args.days * fleet.DAY
    plan = fleet.boards(args.boards, args.days, args.seed, end)
    want = fleet.expected(plan)
    note("planted: %s" % ", ".join("%d %s" % (len(v), k) for k, v in want.items()))

    vm = vm_server = None
    if shutil.which("victoria-metrics"):
        port = free_port()
        vm = "http://127.0.0.1:%d" % port
        scratch.step("starting VictoriaMetrics on", vm)
        vm_server = Server("victoria-metrics",
                           ["victoria-metrics", "-httpListenAddr=127.0.0.1:%d" % port,
                            "-storageDataPath=" + os.path.join(tmp, "vm"), "-retentionPeriod=100y",
                            "-search.latencyOffset=0s", "-loggerLevel=ERROR"],
                           vm + "/health", os.path.join(tmp, "vm.log"))
    try:
        scratch.step("writing and backfilling the fleet")
        data = backfill(args, tmp, plan, start, end, vm)
        return check_prometheus(args, tmp, data, want, plan, end, vm)
    finally:
        if vm_server is not None:
            vm_server.stop()


def check_prometheus(args, tmp, data, want, plan, end, vm):
    rules = os.path.join(tmp, "jmem.rules.yml")
    with open(args.rules) as f:
        text = f.read()
    # the trend group every 10 s: its views at once, not after 5 minutes
    with open(rules, "w") as f:
        f.write(text.replace("    interval: 5m\n", "    interval: 10s\n"))
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  evaluation_interval: 10s\nrule_files:\n  - %s\n" % rules)
        if vm is not None:
            f.write("remote_write:\n  - url: %s/api/v1/write\n" % vm)
    scratch.step("starting Prometheus on", base)
    # The last sample is as old as the backfill took (over an hour for a
    # month of a thousand boards): a lookback past that age, an hour at
    # least, lets the live rules read it as the current value.
    lookback = max(3600, int(time.time()) - end + 1800)
    server = Server("prometheus",
                    ["prometheus", "--config.file=" + config, "--storage.tsdb.path=" + data,
                     "--storage.tsdb.retention.time=100y", "--query.lookback-delta=%ds" % lookback,
                     "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
                    base + "/-/ready", os.path.join(tmp, "prometheus.log"))
    try:
        scratch.step("waiting for the rules' first evaluation")
        group = wait_for("the jmem-trends group's evaluation",
                         lambda: (lambda g: g if all(r.get("lastEvaluation", "").startswith("2")
                                                     for r in g["rules"]) else None)(trend_rules(base)),
                         300)
        note("the trend group took %.2f s to evaluate over the fleet" % group.get("evaluationTime", 0))
        for record, view in VIEWS.items():
            got = boards(query(base, record)[0], view)
            check(got == want[view], "Prometheus records %s: the %d boards planted"
                  % (record, len(want[view])), "got %s\nwant %s" % (got, want[view]))
        for record, view in COUNTS.items():
            got = [float(r["value"][1]) for r in query(base, record)[0]]
            check(got == [len(want[view])], "%s is %d" % (record, len(want[view])), "got %s" % got)
        by_release = collections.Counter(b["l4t_release"] for b in plan if b["kind"] == "unexplained-leak")
        got = {r["metric"]["l4t_release"]: int(float(r["value"][1]))
               for r in query(base, "l4t_release:jmem_boards_unexplained_growing:count")[0]}
        check(got == dict(by_release), "growing remainders counted by L4T release",
              "got %s\nwant %s" % (got, dict(by_release)))
        active = json.loads(http(base + "/api/v1/alerts"))["data"]["alerts"]
        for alert, view in ALERTS.items():
            got = sorted(a["labels"]["instance"] for a in active if a["labels"]["alertname"] == alert)
            check(got == want[view], "%s is active (pending its hour) on the %d boards planted"
                  % (alert, len(want[view])),
                  "got %s\nwant %s" % (got, want[view]))

        if args.dashboards:
            check_dashboards(args.dashboards, base, want["nvmap"][0])

        # The views without recording rules, at the last sample: what each
        # costs a dashboard that would run the regressions itself.
        exprs = expanded(group["rules"])
        answers = {}
        for record, expr in exprs.items():
            result, took = timed(base, expr, end)
            answers[record] = result
            note("Prometheus: %-70s %7.3f s, %d series" % (record, took, len(result)))
        for record, view in VIEWS.items():
            got = boards(answers[record], view)
            check(got == want[view], "Prometheus at the last sample, without recording rules: %s" % record,
                  "got %s\nwant %s" % (got, want[view]))
        for record in ("jmem:boards_exhaustion_predicted_7d:count",
                       "instance:jmem_process_footprint_bytes:top3_growing"):
            _, took = timed(base, record, None)
            note("Prometheus, recorded: %-60s %7.3f s" % (record, took))

        if vm is None:
            skip("VictoriaMetrics answers the same views", "victoria-metrics is not installed")
            skip("VictoriaMetrics receives Prometheus's recorded series by remote write",
                 "victoria-metrics is not installed")
            return
        http(vm + "/internal/force_flush")
        for record, view in VIEWS.items():
            result, took = timed(vm, exprs[record], end)
            note("VictoriaMetrics: %-63s %7.3f s" % (record, took))
            got = boards(result, view)
            check(got == want[view], "VictoriaMetrics at the last sample: %s" % record,
                  "got %s\nwant %s" % (got, want[view]))
        record = "instance:jmem_memory_unexplained_bytes:growing"

        def remote_written():
            http(vm + "/internal/force_flush")
            got = boards(query(vm, record)[0], "unexplained")
            return got if got == want["unexplained"] else None
        try:
            wait_for("remote write", remote_written, 120)
            check(True, "VictoriaMetrics holds %s, remote-written by Prometheus" % record)
        except RuntimeError as e:
            check(False, "VictoriaMetrics holds %s, remote-written by Prometheus" % record,
                  "%s: %s" % (e, boards(query(vm, record)[0], "unexplained")))
    finally:
        server.stop()


def check_dashboards(folder, base, board):
    """Each panel's queries, as Grafana would send them for `board`."""
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name)) as f:
            dashboard = json.load(f)
        for var in dashboard["templating"]["list"]:
            if var["type"] == "query":
                match = re.fullmatch(r"label_values\((\w+), (\w+)\)", var["query"]["query"])
                values = json.loads(http(base + "/api/v1/label/%s/values?%s" % (
                    match.group(2), urllib.parse.urlencode({"match[]": match.group(1)}))))["data"]
                check(board in values, "%s: the variable %s offers %s" % (name, var["name"], board),
                      "got %d values" % len(values))
        for panel in dashboard["panels"]:
            for target in panel["targets"]:
                expr = target["expr"].replace("$instance", board)
                try:
                    result, _ = query(base, expr)
                    check(result, "%s: panel '%s' %s has data" % (name, panel["title"], target["refId"]),
                          expr)
                except (RuntimeError, urllib.error.HTTPError) as e:
                    check(False, "%s: panel '%s' %s answers" % (name, panel["title"], target["refId"]),
                          "%s\n%s" % (expr, e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rules")
    ap.add_argument("--dashboards")
    ap.add_argument("--boards", type=int, default=60)
    ap.add_argument("--days", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    missing = [p for p in ("promtool", "prometheus") if shutil.which(p) is None]
    if missing:
        print("1..0 # SKIP %s not installed (Debian's prometheus package)" % " and ".join(missing))
        return 0
    with scratch.TemporaryDirectory(prefix="jmem-fleet-") as tmp:
        try:
            run(args, tmp)
        except (RuntimeError, OSError) as e:
            check(False, "the fleet is simulated and queried", str(e))
    print("1..%d" % len(results))
    for n, (status, what, detail) in enumerate(results, 1):
        print("%s %d - %s" % (status, n, what))
        for line in detail.splitlines()[-20:]:
            print("# " + line)
    return 0 if all(s == "ok" for s, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
