#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the promtool unit tests of the trend rules (the jmem-trends group
of prometheus/jmem.rules.yml) to stdout:

    gen-trend-tests.py RULES_FILE > trends.test.yml && promtool test rules trends.test.yml

For each trend alert, a slow leak of 10 MiB an hour under +-40 MiB of noise,
sampled every minute for 30 hours, must fire within a day and not in its
first 6 hours; its flat twin (the same noise), a single step of 1 GiB and a
sawtooth of 256 MiB an hour must stay silent at every hour. The recording
rules that feed the fleet views are checked on the same series.
"""
import sys

import series
from series import GiB, HOUR, MiB

EVERY = 60
SPAN = 30 * HOUR
# silent at every hour; the leak silent at 6 h, firing from 20 h on
QUIET_HOURS = range(1, 31)
LEAK_QUIET_HOURS = (6,)
LEAK_FIRING_HOURS = (20, 24, 30)

ANNOTATIONS = {
    "JmemMemoryExhaustionPredicted": (
        "memory a GPU allocation can get runs out within 7 days",
        "Allocatable memory after reclaim has fallen steadily for 12 hours (by more than 4 MiB an hour "
        "in each 6 hours, its highest value lower than in the 6 hours before) and at that slope reaches zero within a "
        "week: a leak that ends in failed allocations or the OOM killer. `jmem triage --history` on "
        "the board's history names the trend and who grows; "
        "`instance:jmem_allocatable_reclaim_bytes:days_left12h` says how many days are left."),
    "JmemNvMapGrowing": (
        "NvMap keeps growing",
        "GPU memory held through NvMap has grown by more than 4 MiB an hour in each of the last two "
        "6-hour windows, its lowest value higher than in the 6 hours before, for an hour: a leak in a CUDA, video or camera "
        "process (buffers mapped and never freed). `jmem triage --history` names the process; "
        "`instance:jmem_nvmap_total_bytes:deriv6h` is the slope."),
    "JmemUnexplainedMemoryGrowing": (
        "memory no bucket explains keeps growing",
        "The accounting's remainder (MemTotal less every named bucket) has grown by more than 4 MiB an "
        "hour in each of the last two 6-hour windows, its lowest value higher than in the 6 hours before, "
        "for an hour: a "
        "driver or kernel leak. Look at /proc/vmallocinfo, slabtop and NvMap's orphan_handles "
        "(docs/accounting.md)."),
}

# alert, metric and its labels, and the shapes: the leak and its decoys
# (allocatable falls where the others rise)
CASES = [
    ("JmemUnexplainedMemoryGrowing", 'jmem_memory_bucket_bytes{bucket="unexplained",%s}',
     {"bucket": "unexplained"}, 300 * MiB, +1),
    ("JmemNvMapGrowing", 'jmem_nvmap_total_bytes{%s}', {}, 2 * GiB, +1),
    ("JmemMemoryExhaustionPredicted", 'jmem_allocatable_bytes{after="reclaim",%s}',
     {"after": "reclaim"}, 1536 * MiB, -1),
]


def values(shape, seed):
    return " ".join(str(v) for _, v in series.samples(shape, SPAN, EVERY, seed))


def input_series(metric, instance, shape, seed):
    return ("      - series: '%s'\n        values: '%s'\n"
            % (metric % ('instance="%s",job="jmem"' % instance), values(shape, seed)))


def alerts(name, labels, instances):
    if not instances:
        return "        exp_alerts: []\n"
    summary, description = ANNOTATIONS[name]
    out = "        exp_alerts:\n"
    for instance in instances:
        lab = dict(labels, severity="warning", instance=instance, job="jmem")
        out += "          - exp_labels: {%s}\n" % ", ".join('%s: "%s"' % kv for kv in sorted(lab.items()))
        out += "            exp_annotations:\n"
        out += '              summary: "%s: %s"\n' % (instance, summary)
        out += "              description: %s\n" % yaml_quote(description)
    return out


def yaml_quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def alert_test(name, hour, labels, instances):
    return ("      - eval_time: %dh\n        alertname: %s\n" % (hour, name)
            + alerts(name, labels, instances))


def expr_test(hour, expr, samples):
    out = "      - eval_time: %dh\n        expr: %s\n" % (hour, yaml_quote(expr))
    if not samples:
        return out + "        exp_samples: []\n"
    out += "        exp_samples:\n"
    for labels, value in samples:
        out += "          - labels: %s\n            value: %s\n" % (yaml_quote(labels), value)
    return out


def count_test(record, count=1):
    """The fleet count the recording rule keeps at 24 h."""
    return expr_test(24, record, [('{__name__="%s"}' % record, count)])


def coarse_steps():
    """A step of 1 GiB at 10 h sampled every 5 minutes, looked at while it
    leaves the last 6 hours (15 h to 16 h 10): there the window holds only
    a few samples from before the step, whose floor alone cannot tell it
    from a leak. No view may count it."""
    text = ""
    for seed, (_, metric, _, base, sign) in enumerate(CASES):
        shape = series.step(base, sign * GiB, 10 * HOUR)
        text += "      - series: '%s'\n        values: '%s'\n" % (
            metric % 'instance="step",job="jmem"',
            " ".join(str(v) for _, v in series.samples(shape, 20 * HOUR, 300, 400 + seed)))
    exprs = ""
    for minute in range(15 * 60, 16 * 60 + 15, 5):
        for record in ("jmem:boards_unexplained_growing:count", "jmem:boards_nvmap_growing:count",
                       "jmem:boards_exhaustion_predicted_7d:count"):
            exprs += ("      - eval_time: %dm\n        expr: %s\n        exp_samples:\n"
                      "          - labels: '{__name__=\"%s\"}'\n            value: 0\n" % (minute, record, record))
    return ("  # a step sampled every 5 minutes, leaving the window\n"
            + group(text, ("", exprs)).replace("  - interval: 1m\n", "  - interval: 5m\n", 1))


def fleet_views():
    """Four boards: a and b publish jmem_board_info of L4T 36.4.0 (a leaks),
    c is of an older jmem with no jmem_board_info and the target label
    l4t_release 35.6.0 (it leaks), and d publishes 38.2.0. On a, a process
    leaks, one is flat and one loads a model."""
    text = ""
    for seed, (board, info, target, shape) in enumerate([
            ("a", "36.4.0", None, series.leak(300 * MiB, 10 * MiB)),
            ("b", "36.4.0", None, series.flat(300 * MiB)),
            ("c", None, "35.6.0", series.leak(300 * MiB, 10 * MiB)),
            ("d", "38.2.0", None, series.flat(300 * MiB))]):
        label = 'l4t_release="%s",' % target if target else ""
        text += input_series('jmem_memory_bucket_bytes{bucket="unexplained",%s%%s}' % label,
                             board, shape, 200 + seed)
        if info:
            text += ("      - series: 'jmem_board_info{l4t_release=\"%s\",sku=\"orin-agx\",model=\"NVIDIA "
                     "Jetson AGX Orin Developer Kit\",%sinstance=\"%s\",job=\"jmem\"}'\n"
                     "        values: '1+0x%d'\n" % (info, label, board, SPAN // EVERY))
    for seed, (pid, comm, shape) in enumerate([
            ("101", "deepstream-app", series.leak(500 * MiB, 10 * MiB)),
            ("102", "python3", series.flat(800 * MiB)),
            ("103", "trtexec", series.step(200 * MiB, GiB, 10 * HOUR))]):
        text += input_series('jmem_process_footprint_bytes{pid="%s",comm="%s",user="nvidia",container="",%%s}'
                             % (pid, comm), "a", shape, 300 + seed)
    record = "l4t_release:jmem_boards_unexplained_growing:count"
    exprs = expr_test(24, record,
                      [('{__name__="%s", l4t_release="%s"}' % (record, release), 1)
                       for release in ("35.6.0", "36.4.0")])
    exprs += expr_test(24, "count by (l4t_release) (instance:jmem_memory_unexplained_bytes:deriv6h_release)",
                       [('{l4t_release="%s"}' % release, n)
                        for release, n in (("35.6.0", 1), ("36.4.0", 2), ("38.2.0", 1))])
    exprs += expr_test(24, "instance:jmem_process_footprint_bytes:top3_growing > bool 0",
                       [('{comm="deepstream-app", instance="a", job="jmem", pid="101", user="nvidia"}', 1)])
    return ("  # fleet views: remainder growth by L4T release (jmem_board_info, or an older jmem's\n"
            "  # target label), the leaking processes of a board\n"
            + group(text, ("", exprs)))


def group(series_text, tests_text):
    return ("  - interval: 1m\n    input_series:\n" + series_text
            + ("    alert_rule_test:\n" + tests_text[0] if tests_text[0] else "")
            + ("    promql_expr_test:\n" + tests_text[1] if tests_text[1] else ""))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = ["# Written by tests/fleet/gen-trend-tests.py; see its docstring.\n",
           "rule_files:\n  - %s\n\nevaluation_interval: 1m\n\ntests:\n" % sys.argv[1]]
    for seed, (name, metric, labels, base, sign) in enumerate(CASES):
        rate = sign * 10 * MiB
        # the leak alone (its own group: when it starts firing depends on its noise)
        text = input_series(metric, "leak", series.leak(base, rate), seed)
        if name == "JmemMemoryExhaustionPredicted":
            # a leak of the same rate with 4 GiB left: out of memory in over 7 days
            text += input_series(metric, "far", series.leak(4 * GiB, rate), seed + 100)
        checks = "".join(alert_test(name, h, labels, []) for h in LEAK_QUIET_HOURS)
        checks += "".join(alert_test(name, h, labels, ["leak"]) for h in LEAK_FIRING_HOURS)
        exprs = ""
        if name == "JmemMemoryExhaustionPredicted":
            # 1.5 GiB less 240 MiB a day: about 5.4 days left at 24 h
            exprs += expr_test(24, "abs(instance:jmem_allocatable_reclaim_bytes:days_left12h - 5.4) < bool 0.5",
                               [('{after="reclaim", instance="leak", job="jmem"}', 1),
                                ('{after="reclaim", instance="far", job="jmem"}', 0)])
            exprs += count_test("jmem:boards_exhaustion_predicted_7d:count")
        else:
            short = {"JmemUnexplainedMemoryGrowing": "memory_unexplained",
                     "JmemNvMapGrowing": "nvmap_total"}[name]
            lab = '{%sinstance="leak", job="jmem"}' % "".join('%s="%s", ' % kv for kv in labels.items())
            # the slope it records is 10 MiB an hour, within 2
            exprs += expr_test(24, "abs(instance:jmem_%s_bytes:deriv6h * 3600 / 1048576 - 10) < bool 2" % short,
                               [(lab, 1)])
            count = {"memory_unexplained": "unexplained", "nvmap_total": "nvmap"}[short]
            exprs += count_test("jmem:boards_%s_growing:count" % count)
        out.append("  # %s: a leak of %+d MiB an hour\n" % (name, rate // MiB))
        out.append(group(text, (checks, exprs)))

        # the decoys: silent at every hour
        text = input_series(metric, "flat", series.flat(base), seed)
        text += input_series(metric, "step", series.step(base, sign * GiB, 10 * HOUR), seed + 10)
        text += input_series(metric, "sawtooth", series.sawtooth(base, sign * 256 * MiB, HOUR), seed + 20)
        checks = "".join(alert_test(name, h, labels, []) for h in QUIET_HOURS)
        if name == "JmemMemoryExhaustionPredicted":
            exprs = count_test("jmem:boards_exhaustion_predicted_7d:count", 0)
        else:
            exprs = count_test("jmem:boards_%s_growing:count" % count, 0)
        out.append("  # %s: the flat twin, a step of 1 GiB at 10 h, a sawtooth of 256 MiB an hour\n" % name)
        out.append(group(text, (checks, exprs)))
    out.append(coarse_steps())
    out.append(fleet_views())
    sys.stdout.write("".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
