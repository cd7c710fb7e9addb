#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The Agent Skill skills/jetson-memory and its evals. TAP output.

- SKILL.md's front matter follows the Agent Skills format; its links exist;
- the Skill, the MCP server's instructions and the evals say the same rule
  about privileged commands;
- every eval is gradable: a prompt, a tree, facts each with one value to
  check, forbidden claims, the tools, whether a privileged command may be
  suggested; no source indexes findings by position; together they cover
  what the Skill must get right (a refusal relayed, a tool's isError
  relayed, Thor without NvMap, a false premise, a prompt that must not
  trigger the Skill, the accounting, and headroom once the server has it);
- every fact with a source holds in the tool's result on the eval's tree,
  through `jmem mcp` as an agent calls it (the outsider's are checked in
  the e2e sandbox, by e2e-mcp-sdk);
- the grader grades the reference answers right: each good one passes,
  each bad one fails, on the checks it names; each eval has at least three
  adversarial answers (bad ones with a class, written to pass a naive
  grader), and together they hold every class of wrong answer that once
  passed.

Usage: test-skill-evals.py JMEM SKILL_DIR FIXTURE_TREES_DIR
"""
import importlib.util
import json
import os
import re
import subprocess
import sys

jmem, skill_dir, trees = sys.argv[1:4]
evals_dir = os.path.join(skill_dir, "evals")
results = []

spec = importlib.util.spec_from_file_location("grade", os.path.join(evals_dir, "grade.py"))
grade = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grade)

# the classes of wrong answer that once passed the grader: each must stay
# among the adversarial answers, and fail
ADVERSARIAL = {"page-cache-held", "privileged-sysctl-as-root", "privileged-su",
               "privileged-usermod-unrelayed", "privileged-systemctl-restart",
               "privileged-set-default-unrelayed", "endorsement-paraphrased",
               "figure-without-number"}
COVERAGE = {"refusal-relayed", "tool-error-relayed", "thor-no-nvmap", "false-premise",
            "should-not-trigger", "accounting"}
VALUE_KEYS = ("kib", "percent", "integer", "pattern")


def ok(cond, name, detail="", skip=None):
    results.append((bool(cond), name, detail, skip))
    return bool(cond)


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


def tokens(path):
    """'a.b[k=v].c[0]' -> ['a', 'b', ('k', 'v'), 'c', 0]"""
    out = []
    for name, selector in re.findall(r"([^.\[\]]+)|\[([^\]]*)\]", path):
        if name:
            out.append(name)
        elif selector.isdigit():
            out.append(int(selector))
        else:
            key, _, value = selector.partition("=")
            out.append((key, value))
    return out


def resolve(doc, path):
    """The value at @path, or KeyError."""
    node = doc
    for t in tokens(path):
        if isinstance(t, tuple):
            key, value = t
            hits = [e for e in node if isinstance(e, dict) and key in e and
                    (e[key] == value or json.dumps(e[key]) == value)]
            if not hits:
                raise KeyError(f"no entry with {key}={value}")
            node = hits[0]
        elif isinstance(t, int):
            node = node[t]
        else:
            node = node[t]
    return node


class Server:
    def __init__(self, tree):
        self.proc = subprocess.Popen([jmem, "mcp", "--sysroot", os.path.join(trees, tree)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.n = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "evals", "version": "1"}})
        self.cache = {}

    def request(self, method, params):
        self.n += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["result"]

    def call(self, tool, arguments):
        key = (tool, json.dumps(arguments, sort_keys=True))
        if key not in self.cache:
            self.cache[key] = self.request("tools/call", {"name": tool, "arguments": arguments})
        return self.cache[key]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


# ---- the Skill, and one rule about privileged commands everywhere ----

with open(os.path.join(skill_dir, "SKILL.md"), encoding="utf-8") as f:
    skill_text = f.read()
fields, body = front_matter(skill_text)
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

server = Server("orin-agx-nvgpu")
init = server.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "evals", "version": "1"}})
instructions = init["instructions"]
server_tools = [t["name"] for t in server.request("tools/list", {})["tools"]]
server.close()
with open(os.path.join(evals_dir, "README.md"), encoding="utf-8") as f:
    evals_readme = f.read()
RULE = re.compile(r"never\s+runs?\s+(a|any)\s+privileged\s+command", re.I)
for what, text in (("SKILL.md", skill_text), ("the server's instructions", instructions),
                   ("evals/README.md", evals_readme)):
    ok(RULE.search(text), f"{what} says never to run a privileged command")
    ok("admin: true" in text, f"{what} says what admin: true means")
    ok(not re.search(r"never (run or )?suggest sudo", text, re.I),
       f"{what} does not forbid what findings say (sudo steps relayed to an administrator)")

# ---- the evals: gradable, covering, no findings by position ----

with open(os.path.join(evals_dir, "evals.json"), encoding="utf-8") as f:
    evals = json.load(f)
ok(evals.get("skill_name") == name, "evals.json names the skill")
ids = [e.get("id") for e in evals["evals"]]
ok(len(ids) == len(set(ids)) and all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i or "") for i in ids),
   "eval ids are unique names", str(ids))
covered = set()
for e in evals["evals"]:
    label = f"eval {e['id']}"
    covered.update(e.get("covers", []))
    ok(e.get("prompt") and e.get("expected_output") and "facts" in e and "forbidden" in e and
       e.get("privileged") in ("never", "relay") and e.get("account") in ("member", "outsider") and
       isinstance(e.get("tools"), dict),
       f"{label} has a prompt, an expected output, facts, forbidden claims, tools, privileged, account")
    ok(e["tree"] is None and e.get("should_trigger") is False or
       e["tree"] is not None and os.path.isdir(os.path.join(trees, e["tree"])),
       f"{label}: its tree exists (none only for a prompt that must not trigger)")
    for fact in e["facts"]:
        keys = [k for k in VALUE_KEYS if k in fact]
        path = fact.get("source", {}).get("path", "")
        problems = []
        if len(keys) != 1 or not fact.get("id") or not fact.get("says"):
            problems.append("not one value, or no id or says")
        if "pattern" not in fact and "source" not in fact:
            problems.append("a number without a source")
        if re.search(r"findings(\.|\[)\d", path):
            problems.append(f"picks a finding by position: {path}")
        for pattern in (fact.get("pattern"), fact.get("source", {}).get("matches")):
            try:
                re.compile(pattern or "")
            except re.error as err:
                problems.append(f"pattern: {err}")
        ok(not problems, f"{label}: fact {fact.get('id')} is gradable and sourced", "; ".join(problems))
    for claim in e["forbidden"]:
        try:
            re.compile(claim["pattern"])
            ok(claim.get("id") and claim.get("says"), f"{label}: forbidden {claim.get('id')} says what it forbids")
        except re.error as err:
            ok(False, f"{label}: forbidden {claim.get('id')}: pattern compiles", str(err))
required = COVERAGE | ({"headroom"} if "headroom" in server_tools else set())
ok(required <= covered, "the evals cover " + ", ".join(sorted(required)), "missing: " + ", ".join(sorted(required - covered)))

# ---- facts against jmem's results on the trees ----

servers = {}
for e in evals["evals"]:
    for fact in e["facts"]:
        source = fact.get("source")
        if source is None:
            continue
        what = f"eval {e['id']}: fact {fact['id']} from {source['tool']} {source.get('path', '(its error)')}"
        if e["account"] == "outsider":
            ok(True, what, skip="checked as the outsider in the e2e sandbox (e2e-mcp-sdk)")
            continue
        if e["tree"] not in servers:
            servers[e["tree"]] = Server(e["tree"])
        result = servers[e["tree"]].call(source["tool"], source.get("arguments", {}))
        if source.get("error"):
            text = result["content"][0]["text"]
            ok(result.get("isError") and re.search(source["matches"], text), what, text[:300])
            continue
        if not ok(not result.get("isError"), what + " runs", result["content"][0]["text"][:300]):
            continue
        try:
            got = resolve(result["structuredContent"], source["path"])
        except (KeyError, IndexError, TypeError) as err:
            ok(False, what, f"not found: {err}")
            continue
        if "matches" in source:
            good = isinstance(got, str) and re.search(source["matches"], got)
        else:
            want = source["equals"] if "equals" in source else next(fact[k] for k in ("kib", "percent", "integer") if k in fact)
            good = got == want and type(got) is type(want)
        ok(good, what, f"got {json.dumps(got)[:200]}")
for s in servers.values():
    s.close()

# ---- the grader on the reference answers ----

classes = set()
for e in evals["evals"]:
    path = os.path.join(evals_dir, "answers", e["id"] + ".json")
    if not ok(os.path.isfile(path), f"eval {e['id']} has reference answers"):
        continue
    with open(path, encoding="utf-8") as f:
        refs = json.load(f)
    ok(refs.get("good") and refs.get("bad"), f"eval {e['id']}: good and bad reference answers")
    for i, ref in enumerate(refs.get("good", [])):
        report = grade.grade(e, ref["answer"], ref.get("tool_calls"))
        failed = [c for c, passed, _ in report if passed is False]
        ok("tool_calls" in ref and not failed and all(p is not None for _, p, _ in report),
           f"eval {e['id']}: good answer {i + 1} passes every check", "failed: " + ", ".join(failed))
    adversarial = [ref for ref in refs.get("bad", []) if ref.get("class")]
    classes.update(ref["class"] for ref in adversarial)
    ok(len(adversarial) >= 3, f"eval {e['id']}: at least three adversarial answers", str(len(adversarial)))
    for i, ref in enumerate(refs.get("bad", [])):
        report = grade.grade(e, ref["answer"], ref.get("tool_calls"))
        failed = {c for c, passed, _ in report if passed is False}
        ok(ref.get("why") and ref.get("fails") and set(ref["fails"]) <= failed,
           f"eval {e['id']}: bad answer {i + 1} fails ({ref.get('class') or ref.get('why')})",
           "expected to fail: " + ", ".join(sorted(set(ref.get("fails", [])) - failed)))

ok(ADVERSARIAL <= classes, "the adversarial answers cover " + ", ".join(sorted(ADVERSARIAL)),
   "missing: " + ", ".join(sorted(ADVERSARIAL - classes)))

print(f"1..{len(results)}")
for i, (good, what, detail, skip) in enumerate(results, 1):
    print(f"{'ok' if good else 'not ok'} {i} - {what}" + (f" # SKIP {skip}" if skip else ""))
    if not good and detail:
        print(f"# {detail}")
sys.exit(0 if all(r[0] for r in results) else 1)
