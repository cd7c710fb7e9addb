#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What `jmem mcp` costs a model, and whether its results say what their
schemas say. TAP output.

- tools/list, as sent, takes at most 16 KB (16,000 bytes) for every tool there is;
- each output schema is a valid draft 2020-12 schema that needs no other
  document, and every structuredContent, on every fixture tree, is valid
  against it and against the published schema of its document;
- a result carries its document once: structuredContent is the document
  with a short "summary", the text block that summary and the key figures
  (under 2025-03-26, without structuredContent, the text is the document);
- every tool's default result (no argument asking for more) gives a model
  at most 8 KiB (8,192 bytes: the larger of its text and its
  structuredContent) on every fixture tree and on this system (audit), and
  every list or object shorter than in the whole document is named in cut;
- every tools/call result takes at most the result limit (64 KiB, or
  --max-result-kib), also on generated worst cases: 60,000 NvMap handles
  with distinct tags, 5,000 NvMap clients, 3,000 processes with 4 KiB
  command lines and NvMap held for 3,000 exited ones, an audit of the live
  system under a 32 KiB limit; what was left out is summed up or named;
- every action, in every tool's result and every command's JSON on every
  fixture tree, is carried by an object with a boolean admin, true exactly
  when it runs a command with sudo (a finding may also be an
  administrator's for a reboot or a group).

Usage: test-mcp-outputs.py JMEM FIXTURES_DIR DOCS_DIR TESTS_DIR
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import scratch

jmem, fixtures, docs, tests_dir = sys.argv[1:5]
# 16 KB (decimal, as the budget is stated): what every conversation pays for
TOOLS_LIST_LIMIT = 16000
RESULT_LIMIT = 64 * 1024
# what a 2026-07-28 client puts in every request instead of a handshake
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}
# what a default call gives a model (docs/mcp.md, "What the model receives"); an
# audit holds two snapshots and their comparison
BUDGET = 8192
AUDIT_BUDGET = 16384
# a sentence, not a document
SUMMARY_LIMIT = 400

spec = importlib.util.spec_from_file_location("validate_json", os.path.join(tests_dir, "validate-json.py"))
validate_json = importlib.util.module_from_spec(spec)
spec.loader.exec_module(validate_json)
jsonschema = validate_json.jsonschema

results = []


def ok(cond, name, detail=""):
    results.append((bool(cond), name, detail))
    return bool(cond)


class Server:
    """`jmem mcp` over pipes; answers are read as raw lines, so that their
    size is what a client receives."""

    def __init__(self, *args, env=None, meta=None):
        self.proc = subprocess.Popen([jmem, "mcp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        self.next_id = 0
        self.meta = meta  # the _meta of every request, where given

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if self.meta is not None:
            params = dict(params or {}, _meta=self.meta)
        if params is not None:
            message["params"] = params
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        answer = json.loads(line)
        assert answer["id"] == self.next_id, answer
        # the result as sent: the line less its envelope
        envelope = len(b'{"jsonrpc":"2.0","id":%d,"result":}\n' % self.next_id)
        return answer, len(line) - envelope

    def initialize(self, revision="2025-11-25"):
        answer, _ = self.request("initialize", {"protocolVersion": revision, "capabilities": {},
                                                "clientInfo": {"name": "t", "version": "1"}})
        return answer["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.stdout.read()
        return self.proc.wait()


def cli_json(*args):
    r = subprocess.run([jmem, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        return None


def validator_for(schema, store=None):
    cls = jsonschema.validators.validator_for({"$schema": "https://json-schema.org/draft/2020-12/schema"})
    cls.check_schema(schema)
    return validate_json.make_validator(cls, schema, store or {})


published = {}
for name in ("snapshot", "triage", "allocations", "drop-caches", "audit"):
    path = os.path.join(docs, name + ".schema.json")
    published[name.replace("-", "_")] = validate_json.make_validator(
        jsonschema.validators.validator_for(validate_json.load(path, "schema")),
        validate_json.load(path, "schema"), validate_json.schemas_beside(path))


def errors_of(validator, doc):
    return ["/".join(str(p) for p in e.absolute_path) + ": " + e.message[:200]
            for e in validator.iter_errors(doc)]


def tools_list(server):
    answer, _ = server.request("tools/list")
    return answer["result"]["tools"]


def refs_in(node):
    """Every "$ref" beneath @node."""
    if isinstance(node, dict):
        return set().union(*(({v} if k == "$ref" else refs_in(v)) for k, v in node.items()))
    if isinstance(node, list):
        return set().union(*(refs_in(v) for v in node))
    return set()


def compact(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def model_bytes(result):
    """What a model reads of @result: the larger of the text block (all an
    @ai-sdk/mcp model gets) and structuredContent (all a Claude Code model
    gets where it is present)."""
    text = len(result["content"][0]["text"].encode())
    return max(text, len(compact(result["structuredContent"])) if "structuredContent" in result else 0)


def check_text(result, what):
    """The document once: a summary to quote, and a text block that is that
    summary and a few lines of figures, not the document again."""
    doc = result["structuredContent"]
    text = result["content"][0]["text"]
    summary = doc.get("summary")
    ok(isinstance(summary, str) and 0 < len(summary.encode()) <= SUMMARY_LIMIT and "\n" not in summary,
       f"{what}: structuredContent has a one-line summary of at most {SUMMARY_LIMIT} bytes", repr(summary))
    ok(isinstance(summary, str) and text.startswith(summary + "\n") or text == summary,
       f"{what}: the text block starts with the summary", text[:200])
    try:
        json.loads(text)
        ok(False, f"{what}: the text block is not the document again", text[:200])
    except json.JSONDecodeError:
        ok(len(text.encode()) * 3 < len(compact(doc)) or len(text.encode()) < 2048,
           f"{what}: the text block ({len(text.encode())} bytes) is the figures, not the document "
           f"({len(compact(doc))} bytes)")


def lengths(node, path=""):
    """The length of every array and object beneath the objects of @node, by
    dotted path, as cut names them."""
    out = {}
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("cut", "summary"):
                continue
            p = f"{path}.{k}" if path else k
            if isinstance(v, (list, dict)):
                out[p] = len(v)
            if isinstance(v, dict):
                out.update(lengths(v, p))
    return out


def check_budget(result, whole, what):
    """@result, a default call's, gives a model at most BUDGET bytes, and
    every list or object shorter than in @whole (the same answer without the
    budget) is named in cut, with what it kept of how many."""
    doc = result["structuredContent"]
    size = model_bytes(result)
    ok(size <= BUDGET, f"{what}: gives a model {size} bytes, at most {BUDGET}")
    named = {c["list"]: c for c in doc.get("cut", {}).get("lists", [])}
    have = lengths(doc)
    unnamed = [f"{p} {have.get(p)} of {n}" for p, n in lengths(whole).items()
               if have.get(p, 0) < n and named.get(p, {}).get("kept") != have.get(p, 0)]
    ok(not unnamed, f"{what}: every shortening is named in cut", "; ".join(unnamed[:5]))
    wrong = [json.dumps(c) for p, c in named.items() if p in lengths(whole) and c["total"] != lengths(whole)[p]]
    ok(not wrong, f"{what}: cut gives each list's whole length", "; ".join(wrong[:5]))


def check_call(server, tools, tool, arguments, what, limit=RESULT_LIMIT):
    """Calls @tool; checks the result's size and its document against both
    schemas. Returns the structuredContent (None when isError)."""
    answer, size = server.request("tools/call", {"name": tool, "arguments": arguments})
    result = answer["result"]
    ok(size <= limit, f"{what}: {tool} {json.dumps(arguments)} takes {size} bytes, at most {limit}")
    if result.get("isError"):
        return None
    doc = result["structuredContent"]
    check_text(result, f"{what}: {tool} {json.dumps(arguments)}")
    schema = next(t["outputSchema"] for t in tools if t["name"] == tool)
    errs = errors_of(validator_for(schema), doc)
    ok(not errs, f"{what}: {tool} {json.dumps(arguments)} meets its outputSchema", "; ".join(errs[:5]))
    errs = errors_of(published[tool], doc)
    ok(not errs, f"{what}: {tool} {json.dumps(arguments)} meets the published schema", "; ".join(errs[:5]))
    return doc


# ---- tools/list: size and schemas ----

server = Server("--sysroot", os.path.join(fixtures, "trees", "orin-agx-nvgpu"))
server.initialize()
tools = tools_list(server)
# the size as sent: what a client receives, envelope and all
server.proc.stdin.write(b'{"jsonrpc":"2.0","id":"size","method":"tools/list"}\n')
server.proc.stdin.flush()
list_bytes = len(server.proc.stdout.readline())
names = [t["name"] for t in tools]
print(f"# tools/list: {list_bytes} bytes for {len(tools)} tools ({', '.join(names)})")
ok(list_bytes <= TOOLS_LIST_LIMIT,
   f"tools/list takes {list_bytes} bytes for {len(tools)} tools, at most {TOOLS_LIST_LIMIT}")
for t in tools:
    schema = t["outputSchema"]
    ok("$schema" not in schema and "$id" not in schema, f"{t['name']}: outputSchema has no $schema or $id")
    try:
        validator_for(schema)
        ok(True, f"{t['name']}: outputSchema is a valid 2020-12 schema")
    except jsonschema.exceptions.SchemaError as e:
        ok(False, f"{t['name']}: outputSchema is a valid 2020-12 schema", e.message)
    defs = schema.get("$defs", {})
    reached, todo = set(), refs_in({k: v for k, v in schema.items() if k != "$defs"})
    ok(all(r.startswith("#/$defs/") and r[len("#/$defs/"):] in defs for r in refs_in(schema)),
       f"{t['name']}: every $ref is to its own $defs", str(sorted(refs_in(schema))))
    while todo:
        name = todo.pop()[len("#/$defs/"):]
        if name in defs and name not in reached:
            reached.add(name)
            todo |= refs_in(defs[name])
    ok(reached == set(defs), f"{t['name']}: its $defs are those it refers to", str(set(defs) - reached))
    ok(t["inputSchema"].get("additionalProperties") is False, f"{t['name']}: inputSchema is closed")
server.close()
# 2026-07-28: the same tools; the revision adds resultType, ttlMs, cacheScope
# and the server's identity to the result (measured, not held to the budget)
server = Server("--sysroot", os.path.join(fixtures, "trees", "orin-agx-nvgpu"), meta=MODERN_META)
answer, size = server.request("tools/list")
size += len(b'{"jsonrpc":"2.0","id":1,"result":}\n')
print(f"# tools/list under 2026-07-28: {size} bytes")
ok(answer["result"]["tools"] == tools, "tools/list under 2026-07-28 gives the same tools")
server.close()

# ---- a client of 2025-03-26 has no structuredContent: its text is the document ----

server = Server("--sysroot", os.path.join(fixtures, "trees", "orin-agx-nvgpu"))
server.initialize("2025-03-26")
answer, _ = server.request("tools/call", {"name": "triage", "arguments": {}})
result = answer["result"]
try:
    doc = json.loads(result["content"][0]["text"])
except json.JSONDecodeError:
    doc = None
ok("structuredContent" not in result and isinstance(doc, dict) and doc.get("schema") == "jmem-triage" and
   isinstance(doc.get("summary"), str), "2025-03-26: the text block is the document, with its summary")
server.close()

# ---- every fixture tree: every result valid, within the limit ----

trees = sorted(d for d in os.listdir(os.path.join(fixtures, "trees"))
               if os.path.isdir(os.path.join(fixtures, "trees", d)))
for tree in trees:
    server = Server("--sysroot", os.path.join(fixtures, "trees", tree))
    server.initialize()
    tools = tools_list(server)
    snap = check_call(server, tools, "snapshot", {"all": True}, tree)
    check_call(server, tools, "snapshot", {}, tree)
    if snap and snap["processes"]["list"]:
        check_call(server, tools, "snapshot", {"pid": snap["processes"]["list"][0]["pid"]}, tree)
    triage = check_call(server, tools, "triage", {}, tree)
    if triage is not None:
        ok(all(isinstance(f.get("admin"), bool) for f in triage["findings"]), f"{tree}: every finding says admin")
    check_call(server, tools, "allocations", {}, tree)
    check_call(server, tools, "allocations", {"limit": 1}, tree)
    # each default call against the same answer without the budget
    for tool, whole_args in (("snapshot", {"top": 10}), ("triage", None), ("headroom", None),
                             ("allocations", {"limit": 100})):
        answer, _ = server.request("tools/call", {"name": tool, "arguments": {}})
        result = answer["result"]
        if result.get("isError"):
            continue
        if whole_args is None:
            whole = cli_json(tool, "--json", "--sysroot", os.path.join(fixtures, "trees", tree))
        else:
            whole = server.request("tools/call", {"name": tool, "arguments": whole_args})[0]["result"]["structuredContent"]
        check_budget(result, whole, f"{tree}: {tool} by default")
    ok(server.close() == 0, f"{tree}: the server exits 0")


# ---- every action says whether it is an administrator's ----

def actions_in(node, path="$"):
    """Every object that carries an action beneath @node: (path, object),
    and a path with None for an entry of an "actions" list that is not an
    object."""
    if isinstance(node, list):
        for i, v in enumerate(node):
            yield from actions_in(v, f"{path}[{i}]")
    elif isinstance(node, dict):
        if "action" in node:
            yield path, node
        for k, v in node.items():
            if k == "actions" and isinstance(v, list):
                for i, a in enumerate(v):
                    if not isinstance(a, dict) or "action" not in a:
                        yield f"{path}.actions[{i}]", None
            yield from actions_in(v, f"{path}.{k}")


def check_admin(doc, what):
    """Every action of @doc: an object with a boolean admin, true where it
    says sudo; only a finding is an administrator's without (a reboot, a
    group, the boot configuration). Returns how many there were."""
    n = 0
    for path, carrier in actions_in(doc):
        n += 1
        if carrier is None:
            ok(False, f"{what}: {path} is an object with action and admin")
            continue
        admin = carrier.get("admin")
        text = carrier["action"] or ""
        finding = "severity" in carrier
        if not isinstance(admin, bool):
            ok(False, f"{what}: {path} says admin", json.dumps(carrier)[:300])
        elif "sudo " in text and not admin:
            ok(False, f"{what}: {path} runs sudo and says admin: true", text)
        elif not finding and admin != ("sudo " in text):
            ok(False, f"{what}: {path} says admin: {admin}", text)
    return n


seen = {"admin": 0, "not admin": 0}
for tree in trees:
    root = os.path.join(fixtures, "trees", tree)
    docs_of_tree = []
    server = Server("--sysroot", root)
    server.initialize()
    for tool, arguments in (("snapshot", {"all": True}), ("triage", {}), ("headroom", {}),
                            ("headroom", {"need": "4P"})):
        answer, _ = server.request("tools/call", {"name": tool, "arguments": arguments})
        if not answer["result"].get("isError"):
            docs_of_tree.append((f"{tree}: tool {tool} {json.dumps(arguments)}",
                                 answer["result"]["structuredContent"]))
    server.close()
    base = cli_json("headroom", "--json", "--sysroot", root)
    needs = ["4P"]
    if base and base["headroom"]["allocatable_after_reclaim_kib"] and base["headroom"]["allocatable_now_kib"] is not None:
        h = base["headroom"]
        needs.append(str((h["allocatable_now_kib"] + h["allocatable_after_reclaim_kib"]) // 2 * 1024))
    commands = [["snapshot", "--json"], ["triage", "--json"]] + [["headroom", "--json", "--need", n] for n in needs]
    for command in commands:
        doc = cli_json(*command, "--sysroot", root)
        if doc is not None:
            docs_of_tree.append((f"{tree}: jmem {' '.join(command)}", doc))
    for what, doc in docs_of_tree:
        check_admin(doc, what)
        for _, carrier in actions_in(doc):
            if carrier is not None and carrier.get("action") and "severity" not in carrier:
                seen["admin" if carrier.get("admin") else "not admin"] += 1
    ok(len(docs_of_tree) >= 6, f"{tree}: every action of {len(docs_of_tree)} documents says admin")
# the fixtures hold both kinds: the check above checked something
ok(seen["admin"] > 0 and seen["not admin"] > 0,
   "the fixtures' actions include administrators' and others'", json.dumps(seen))


# ---- generated worst cases ----

def copy_tree(tmp, name="tree"):
    root = os.path.join(tmp, name)
    shutil.copytree(os.path.join(fixtures, "trees", "orin-agx-nvgpu"), root, symlinks=True)
    return root


def handle_sizes(path):
    sizes = []
    with open(path, encoding="ascii") as f:
        for line in f:
            cols = line.split()
            if line.startswith(" ") and len(cols) >= 10 and cols[1].endswith("K"):
                sizes.append(int(cols[1][:-1]))
    return sizes


CLIENT = "%-18s %18s %8u %10uK\n"
HANDLE = "%-18s %-18s %8x %10uK %8x %6u %6u %6u %6u %6u %6u %016x %s\n"

with scratch.TemporaryDirectory(prefix="jmem-mcp-outputs-") as tmp:
    # 60,000 handles, their tags distinct
    root = copy_tree(tmp, "handles")
    allocations = os.path.join(root, "sys/kernel/debug/nvmap/iovmm/allocations")
    subprocess.run([sys.executable, os.path.join(tests_dir, "gen-nvmap-allocations.py"), "60000",
                    allocations], check=True)
    sizes = sorted(handle_sizes(allocations), reverse=True)
    ok(len(sizes) == 60000, "the generated file holds 60,000 handles", str(len(sizes)))
    server = Server("--sysroot", root)
    server.initialize()
    tools = tools_list(server)
    for args in ({}, {"limit": 1000}, {"limit": 1000000}, {"pid": 4242, "limit": 1000000}):
        doc = check_call(server, tools, "allocations", args, "60,000 handles")
        if doc is None:
            ok(False, "60,000 handles: allocations answers")
            continue
        shown = [h["size_kib"] for c in doc["clients"] for h in c["handles"]]
        s = doc["totals"]
        total = 60000 if "pid" not in args else s["handles"]
        ok(len(shown) > 0 and len(shown) + doc["omitted"]["handles"] == s["handles"] == total,
           f"60,000 handles {json.dumps(args)}: {len(shown)} shown, the rest in omitted",
           f"{len(shown)} + {doc.get('omitted')} vs {s['handles']}")
        # fewer handles than the limit asked for: cut says so, with how many
        wanted = min(args.get("limit", 100), total)
        cut = [c for c in doc.get("cut", {}).get("lists", []) if c["list"] == "handles"]
        if len(shown) < wanted:
            ok(cut == [{"list": "handles", "kept": len(shown), "total": wanted}],
               f"60,000 handles {json.dumps(args)}: {len(shown)} of the {wanted} handles asked for, named in cut",
               json.dumps(doc.get("cut")))
        else:
            ok(not cut, f"60,000 handles {json.dumps(args)}: all {wanted} handles asked for, no cut")
        if "pid" not in args:
            ok(sorted(shown, reverse=True) == sizes[:len(shown)],
               f"60,000 handles {json.dumps(args)}: the handles shown are the largest")
        ok(len(s["by_tag"]) == 10 and s["other_tags"]["count"] > 40000 and
           sum(t["handles"] for t in s["by_tag"]) + s["other_tags"]["handles"] == s["handles"],
           f"60,000 handles {json.dumps(args)}: the 10 largest tags, the rest in one line",
           json.dumps(s["other_tags"]))
        ok(sum(p["handles"] for p in s["by_process"]) + s["other_processes"]["handles"] == s["handles"],
           f"60,000 handles {json.dumps(args)}: by process, every handle counted")
    ok(server.close() == 0, "60,000 handles: the server exits 0")

    # 5,000 clients, each a process of its own
    root = copy_tree(tmp, "clients")
    with open(os.path.join(root, "sys/kernel/debug/nvmap/iovmm/allocations"), "w", encoding="ascii") as f:
        f.write("%-18s %18s %8s %11s\n" % ("CLIENT", "PROCESS", "PID", "SIZE"))
        f.write("%-18s %-18s %8s %11s %8s %6s %6s %6s %6s %6s %6s %8s\n"
                % ("", "", "BASE", "SIZE", "FLAGS", "REFS", "DUPES", "PINS", "KMAPS", "UMAPS", "SHARE", "UID"))
        for i in range(5000):
            f.write(CLIENT % ("user", "worker-%d" % i, 10000 + i, 8 + i))
            f.write(HANDLE % ("", "", 0x1000 * i, 4, 0x10120001, 1, 1, 0, 0, 1, 1, 0, "a-%d" % i))
            f.write(HANDLE % ("", "", 0x1000 * i + 4, 4 + i, 0x10120001, 1, 1, 0, 0, 1, 1, 0, "b-%d" % i))
            f.write("\n")
    server = Server("--sysroot", root)
    server.initialize()
    tools = tools_list(server)
    doc = check_call(server, tools, "allocations", {"limit": 1000000}, "5,000 clients")
    if ok(doc is not None, "5,000 clients: allocations answers"):
        s = doc["totals"]
        ok(s["handles"] == 10000 and len(s["by_process"]) == 16 and s["other_processes"]["count"] == 4984,
           "5,000 clients: the 16 largest processes, the rest in one line", json.dumps(s["other_processes"]))
        ok(s["by_process"][0]["process"] == "worker-4999", "5,000 clients: the largest process first")
    server.close()

    # 3,000 processes with 4 KiB command lines, and NvMap held for 3,000 exited ones
    root = copy_tree(tmp, "processes")
    proc = os.path.join(root, "proc")
    for i in range(3000):
        pid = 20000 + i
        shutil.copytree(os.path.join(proc, "1731"), os.path.join(proc, str(pid)))
        with open(os.path.join(proc, str(pid), "cmdline"), "wb") as f:
            f.write(b"/usr/bin/python3\0" + (b"--option-%d " % i) * (4000 // 16))
    clients = os.path.join(root, "sys/kernel/debug/nvmap/iovmm/clients")
    with open(clients, encoding="ascii") as f:
        lines = f.read().splitlines(keepends=True)
    with open(clients, "w", encoding="ascii") as f:
        f.writelines(lines[:-1])
        for i in range(3000):
            f.write("%-18s %18s %8u %10uK\n" % ("user", "gone-%d" % i, 60000 + i, 1024 + i))
        f.write(lines[-1])
    server = Server("--sysroot", root)
    server.initialize()
    tools = tools_list(server)
    doc = check_call(server, tools, "snapshot", {"all": True}, "3,000 processes")
    if ok(doc is not None and "cut" in doc, "3,000 processes: the snapshot says what it cut"):
        cut = {c["list"]: c for c in doc["cut"]["lists"]}
        ok(cut.get("processes.list", {}).get("total") == doc["processes"]["total"] and
           doc["processes"]["shown"] == len(doc["processes"]["list"]) == cut["processes.list"]["kept"] > 0,
           "3,000 processes: processes.list cut, shown and cut.lists agree", json.dumps(cut))
        ok(doc["processes"]["list"][0]["pid"] == 1792595, "3,000 processes: the largest holder kept first")
        ok(all(p["cmdline_truncated"] for p in doc["processes"]["list"] if p["cmdline"] and len(p["cmdline"]) > 300),
           "3,000 processes: a shortened command line says so")
    # what 2026-07-28 adds to a result is counted in its limit too
    modern = Server("--sysroot", root, meta=MODERN_META)
    check_call(modern, tools, "snapshot", {"all": True}, "3,000 processes, 2026-07-28")
    modern.close()
    doc = check_call(server, tools, "triage", {}, "3,000 processes")
    if ok(doc is not None, "3,000 processes: triage answers"):
        ok(any(f["id"] == "nvmap-orphan" for f in doc["findings"]), "3,000 processes: nvmap-orphan is there")
    server.close()

# ---- the live system: an audit under a small limit (two snapshots with their accounting and headroom need more than 32 KiB); the option's range ----

env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS="unix:path=/nonexistent/jmem-test-bus")
server = Server("--max-result-kib", "48", env=env)
server.initialize()
tools = tools_list(server)
doc = check_call(server, tools, "audit", {"top": 100000}, "live audit", limit=48 * 1024)
if ok(doc is not None, "live audit under 48 KiB answers"):
    ok("cut" in doc and doc["cut"]["limit_bytes"] == 48 * 1024, "live audit under 48 KiB: says what it cut")
answer, _ = server.request("tools/call", {"name": "audit", "arguments": {}})
if ok(not answer["result"].get("isError"), "live audit by default answers"):
    audit = answer["result"]
    check_text(audit, "live audit by default")
    doc = audit["structuredContent"]
    # two audits are two moments, so no whole one to compare with: each list
    # cut names holds what cut says it kept
    ok(model_bytes(audit) <= AUDIT_BUDGET,
       f"live audit by default: gives a model {model_bytes(audit)} bytes, at most {AUDIT_BUDGET}")
    have = lengths(doc)
    wrong = [json.dumps(c) for c in doc.get("cut", {}).get("lists", []) if have.get(c["list"]) != c["kept"]]
    ok("cut" in doc and not wrong, "live audit by default: each list cut names keeps what cut says", "; ".join(wrong))
server.close()
for bad in ("31", "1048577", "x"):
    run = subprocess.run([jmem, "mcp", "--max-result-kib", bad], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True)
    ok(run.returncode == 64 and "--max-result-kib" in run.stderr + run.stdout,
       f"--max-result-kib {bad} is a usage error", run.stderr.strip())

print(f"1..{len(results)}")
for i, (good, what, detail) in enumerate(results, 1):
    print(f"{'ok' if good else 'not ok'} {i} - {what}")
    if not good and detail:
        print(f"# {detail}")
sys.exit(0 if all(r[0] for r in results) else 1)
