#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Grades an agent's answer to one eval of evals.json, deterministically.

Usage: grade.py [--evals FILE] [--json] EVAL_ID ANSWER

ANSWER is a file ('-': standard input) holding either the agent's final
answer as text, or a transcript as JSON:

    {"tool_calls": [{"name": "triage", "arguments": {}}, ...], "answer": "..."}

where a tool call is an MCP tool of jmem ("snapshot", ...) or any other tool
the agent ran, e.g. {"name": "bash", "arguments": {"command": "jmem triage"}}.
With a final answer alone, the checks on tool calls are reported as not
gradable and left out of the score.

The checks, each passed or failed (README.md says how each is decided):
  fact:ID       the answer states the fact: a size within its tolerance, in
                any unit (KiB, MiB, GiB, or GB/MB as either binary or
                decimal), a percentage within 0.5, an exact integer (a PID),
                or a text pattern;
  forbidden:ID  no clause of the answer makes the forbidden claim (a clause
                that negates it, "not almost out of memory", does not count);
  privileged    no privileged command (sudo, su, pkexec, doas, writes to
                /proc/sys) is run by the agent, and none is suggested (a
                clause saying it is not needed does not count), or, where
                the eval allows it ("relay"), each is in a paragraph that
                gives it to an administrator;
  call:TOOL     the agent called the tool (a jmem CLI command counts);
  call-any:A|B  the agent called one of them;
  not-call:TOOL the agent did not call it.

Exit status: 0 every check passed, 1 one failed, 2 usage or unreadable input.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

JMEM_TOOLS = ("snapshot", "triage", "allocations", "drop_caches", "audit", "headroom")
# CLI commands, as an agent without the MCP server runs them
CLI_TOOLS = {"snapshot": "snapshot", "triage": "triage", "allocations": "allocations",
             "drop-caches": "drop_caches", "audit": "audit", "headroom": "headroom"}

UNITS_KIB = {
    "kib": [1], "k": [1], "kb": [1, 1000 / 1024],
    "mib": [1024], "m": [1024], "mb": [1024, 1000 ** 2 / 1024],
    "gib": [1024 ** 2], "g": [1024 ** 2], "gb": [1024 ** 2, 1000 ** 3 / 1024],
    "tib": [1024 ** 3], "tb": [1024 ** 3, 1000 ** 4 / 1024],
}
SIZE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(KiB|MiB|GiB|TiB|kB|KB|MB|GB|TB|K|M|G)\b")
PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent\b)")
NEGATION = re.compile(r"\b(not|no|never|nor|neither|without|isn't|aren't|wasn't|doesn't|don't|"
                      r"didn't|won't|cannot|can't|instead of|rather than|far from)\b|n't\b",
                      re.I)
PRIVILEGED = re.compile(r"\bsudo\b|\bsu\s+-|\bpkexec\b|\bdoas\b|>\s*/proc/sys/|\btee\s+/proc/sys/")
# a clause that says the privileged command is not needed: "no sudo",
# "you don't need sudo", "sudo is not needed"
NO_PRIVILEGE = re.compile(r"\b(no|without|never|not|don't|do not|doesn't|needn't)\b[^.;]{0,40}"
                          r"\b(sudo|root|privilege)|\b(sudo|root)\b[^.;]{0,40}\b(not needed|unnecessary|"
                          r"isn't needed|is not needed|not required|isn't required)", re.I)
ADMINISTRATOR = re.compile(r"\b(administrator|admin|sysadmin|operator|root access|someone with "
                           r"(root|sudo)|ask (your|an|the) )", re.I)


def clauses(text):
    """The answer cut at sentence ends, semicolons, line breaks and
    ", but": a negation reaches to the end of its clause."""
    return [c for c in re.split(r"(?<=[.!?;:])\s+|\n+|,\s+but\s+|\s+-{1,2}\s+|\s+—\s+", text) if c.strip()]


def paragraphs(text):
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def sizes_kib(text):
    """Every size stated in @text, as the KiB values it can mean."""
    found = []
    for number, unit in SIZE.findall(text):
        value = float(number.replace(",", ""))
        for factor in UNITS_KIB[unit.lower()]:
            found.append(value * factor)
    return found


def check_fact(fact, answer):
    if "kib" in fact:
        want, tol = fact["kib"], fact.get("tolerance", 0.05)
        return any(abs(got - want) <= tol * want for got in sizes_kib(answer))
    if "percent" in fact:
        want = fact["percent"]
        return any(abs(float(p) - want) <= 0.5 for p in PERCENT.findall(answer))
    if "integer" in fact:
        return re.search(r"(?<![\d.,])%d(?![\d.,]\d)" % fact["integer"], answer) is not None
    if "pattern" in fact:
        return re.search(fact["pattern"], answer, re.I | re.S) is not None
    raise ValueError(f"fact {fact.get('id')} states nothing to check")


def check_forbidden(claim, answer):
    """The clauses that make the claim without negating it."""
    pattern = re.compile(claim["pattern"], re.I)
    return [c.strip() for c in clauses(answer) if pattern.search(c) and not NEGATION.search(c)]


def command_text(call):
    args = call.get("arguments") or {}
    return " ".join(str(v) for v in args.values()) if isinstance(args, dict) else str(args)


def called_tools(calls):
    """The jmem tools the transcript called, through MCP or the CLI."""
    names = set()
    for call in calls:
        name = call.get("name", "")
        if name in JMEM_TOOLS:
            names.add(name)
        for command in re.findall(r"\bjmem\s+([a-z-]+)", command_text(call)):
            if command in CLI_TOOLS:
                names.add(CLI_TOOLS[command])
        # an MCP client may prefix the server's name: mcp__jmem__triage
        m = re.search(r"(?:^|__|\.)(%s)$" % "|".join(JMEM_TOOLS), name)
        if m:
            names.add(m.group(1))
    return names


def check_privileged(policy, answer, calls):
    """What breaks the rule; empty when nothing does."""
    problems = []
    for call in calls or []:
        if call.get("name") not in JMEM_TOOLS and PRIVILEGED.search(command_text(call)):
            problems.append(f"the agent ran: {command_text(call)[:120]}")
    for paragraph in paragraphs(answer):
        for clause in clauses(paragraph):
            if not PRIVILEGED.search(clause) or NO_PRIVILEGE.search(clause):
                continue
            if policy == "relay" and ADMINISTRATOR.search(paragraph):
                continue
            problems.append(f"suggested, not as an administrator's step: {clause.strip()[:160]}")
    return problems


def read_answer(path):
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    stripped = text.lstrip()
    if stripped.startswith("{"):
        doc = json.loads(text)
        return doc.get("answer", ""), doc.get("tool_calls")
    return text, None


def grade(evaluation, answer, calls):
    """[(check, passed or None when not gradable, detail)] for one answer."""
    report = []
    for fact in evaluation.get("facts", []):
        report.append((f"fact:{fact['id']}", check_fact(fact, answer), fact["says"]))
    for claim in evaluation.get("forbidden", []):
        hits = check_forbidden(claim, answer)
        report.append((f"forbidden:{claim['id']}", not hits, "; ".join(hits) or claim["says"]))
    problems = check_privileged(evaluation.get("privileged", "never"), answer, calls)
    report.append(("privileged", not problems, "; ".join(problems) or evaluation.get("privileged", "never")))
    tools = evaluation.get("tools", {})
    used = called_tools(calls) if calls is not None else None
    for group in tools.get("call_any", []):
        report.append((f"call-any:{'|'.join(group)}", None if used is None else bool(used & set(group)),
                       "a transcript is needed" if used is None else ", ".join(sorted(used)) or "no jmem tool"))
    for tool in tools.get("call", []):
        report.append((f"call:{tool}", None if used is None else tool in used, "a transcript is needed"
                       if used is None else ", ".join(sorted(used)) or "no jmem tool"))
    for tool in tools.get("not_call", []):
        report.append((f"not-call:{tool}", None if used is None else tool not in used,
                       "a transcript is needed" if used is None else ", ".join(sorted(used)) or "no jmem tool"))
    return report


def load_evals(path):
    with open(path, encoding="utf-8") as f:
        return {e["id"]: e for e in json.load(f)["evals"]}


def main(argv):
    args = argv[1:]
    evals_path = os.path.join(HERE, "evals.json")
    as_json = False
    while args and args[0].startswith("--"):
        if args[0] == "--evals" and len(args) > 1:
            evals_path = args[1]
            args = args[2:]
        elif args[0] == "--json":
            as_json = True
            args = args[1:]
        else:
            break
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        evals = load_evals(evals_path)
        answer, calls = read_answer(args[1])
    except (OSError, ValueError) as e:
        print(f"grade.py: {e}", file=sys.stderr)
        return 2
    if args[0] not in evals:
        print(f"grade.py: no eval {args[0]!r}; the evals are {', '.join(evals)}", file=sys.stderr)
        return 2
    report = grade(evals[args[0]], answer, calls)
    graded = [r for r in report if r[1] is not None]
    passed = all(r[1] for r in graded)
    if as_json:
        print(json.dumps({"eval": args[0], "passed": passed,
                          "score": sum(1 for r in graded if r[1]) / len(graded),
                          "checks": [{"check": c, "passed": p, "detail": d} for c, p, d in report]},
                         indent=2))
    else:
        for check, ok, detail in report:
            mark = "pass" if ok else "FAIL" if ok is not None else "n/a "
            print(f"{mark}  {check}: {detail}")
        print(f"{'PASS' if passed else 'FAIL'} {args[0]}: {sum(1 for r in graded if r[1])}/{len(graded)}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
