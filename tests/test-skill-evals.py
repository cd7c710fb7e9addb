#!/usr/bin/env python3
"""The Agent Skill skills/jetson-memory: its front matter follows the Agent
Skills format, and every eval's checks hold on jmem's own output for the
fixture tree it names. TAP output.

Usage: test-skill-evals.py JMEM SKILL_DIR FIXTURE_TREES_DIR
"""
import json
import os
import re
import subprocess
import sys

jmem, skill_dir, trees = sys.argv[1:4]
results = []


def ok(cond, name, detail=""):
    results.append((bool(cond), name, detail))


def front_matter(text):
    m = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    if not m:
        return None, text
    fields = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and not line.startswith((" ", "\t")):
            fields[key.strip()] = value.strip()
    return fields, m.group(2)


def collect(doc, path):
    """The values at dotted @path; '*' takes every element of an array."""
    values = [doc]
    for part in path.split("."):
        nxt = []
        for v in values:
            if part == "*" and isinstance(v, list):
                nxt.extend(v)
            elif isinstance(v, list) and part.isdigit() and int(part) < len(v):
                nxt.append(v[int(part)])
            elif isinstance(v, dict) and part in v:
                nxt.append(v[part])
        values = nxt
    return values


def check(doc, c):
    values = collect(doc, c["path"])
    op, want = c["op"], c["value"]
    if op == "includes":
        return want in values, values
    if len(values) != 1:
        return False, values
    got = values[0]
    if op == "equals":
        return got == want and type(got) is type(want), got
    if op == "matches":
        return isinstance(got, str) and re.search(want, got) is not None, got
    if op == "at_least":
        return isinstance(got, (int, float)) and not isinstance(got, bool) and got >= want, got
    if op == "at_most":
        return isinstance(got, (int, float)) and not isinstance(got, bool) and got <= want, got
    raise ValueError(f"unknown op {op}")


with open(os.path.join(skill_dir, "SKILL.md"), encoding="utf-8") as f:
    fields, body = front_matter(f.read())
ok(fields is not None, "SKILL.md starts with YAML front matter")
fields = fields or {}
name = fields.get("name", "")
ok(name == os.path.basename(os.path.normpath(skill_dir)), "name matches the folder", name)
ok(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and len(name) <= 64, "name is lowercase, hyphenated, at most 64 characters")
desc = fields.get("description", "")
ok(0 < len(desc) <= 1024, "description is 1 to 1024 characters", str(len(desc)))
ok(re.search(r"\bUse when\b", desc), "description says when to use the skill")
for ref in re.findall(r"\]\(([^)#]+)\)", body):
    ok(os.path.isfile(os.path.join(skill_dir, ref)), f"linked file {ref} exists")

with open(os.path.join(skill_dir, "evals", "evals.json"), encoding="utf-8") as f:
    evals = json.load(f)
ok(evals.get("skill_name") == name, "evals.json names the skill")
ok(len(evals["evals"]) >= 8, "at least 8 evals", str(len(evals["evals"])))

outputs = {}
for e in evals["evals"]:
    label = f"eval {e['id']}"
    ok(e.get("prompt") and e.get("expected_output") and e.get("expectations") and e.get("checks"),
       f"{label} has a prompt, an expected output, expectations and checks")
    key = (e["tree"], tuple(e["run"]))
    if key not in outputs:
        argv = [jmem] + e["run"] + ["--no-ask-password", "--sysroot", os.path.join(trees, e["tree"])]
        run = subprocess.run(argv, capture_output=True, text=True)
        status = e.get("exit_status", 0)
        outputs[key] = json.loads(run.stdout) if run.returncode == status else None
        ok(run.returncode == status, f"{label}: {' '.join(e['run'])} on {e['tree']} exits {status}",
           f"exit {run.returncode}: {run.stderr.strip()}")
    doc = outputs[key]
    for c in e["checks"]:
        good, got = check(doc, c) if doc is not None else (False, None)
        ok(good, f"{label}: {c['path']} {c['op']} {json.dumps(c['value'])}", f"got {json.dumps(got)[:300]}")

print(f"1..{len(results)}")
for i, (good, what, detail) in enumerate(results, 1):
    print(f"{'ok' if good else 'not ok'} {i} - {what}")
    if not good and detail:
        print(f"# {detail}")
sys.exit(0 if all(r[0] for r in results) else 1)
