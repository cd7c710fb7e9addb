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
                or a text pattern; each size or percentage by a number of
                its own (one figure does not stand for two facts);
  forbidden:ID  no clause of the answer makes the forbidden claim (a
                negation bearing on it, "not almost out of memory", undoes
                it; one elsewhere in the clause does not);
  page-cache    an answer about page cache calls it reclaimable, and no
                part of it calls page cache held ("in use, not available",
                "not reclaimable");
  privileged    judged by what a command does (PRIVILEGED_OPS: sudo, su,
                pkexec, doas, sysctl writes, writes to /proc or /sys, group
                and account changes, systemctl start/stop/restart/enable/
                disable/set-default/mask, reboot, modprobe, apt install or
                remove, nvpmodel), not by the word sudo: none is run by the
                agent, and none is suggested (a clause saying it is not
                needed does not count), or, where the eval allows it
                ("relay"), each is in a paragraph that gives it to an
                administrator;
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
NEGATION = re.compile(r"\b(not|no|nothing|none|never|nor|neither|without|isn't|aren't|wasn't|doesn't|don't|"
                      r"didn't|won't|cannot|can't|instead of|rather than|far from)\b|n't\b",
                      re.I)
# Privileged operations, judged by what the command does, not by the word
# sudo: (what it is, pattern).  reboot and shutdown count only as commands
# (in backticks or after sudo), not as the word in prose.
PRIVILEGED_OPS = [
    ("sudo, su, pkexec or doas", r"\bsudo\b|\bsu\s+(-|root\b|-c\b)|\bpkexec\b|\bdoas\b"),
    ("a sysctl write", r"\bsysctl\s+(-\w*w|--write|[\w.]+=)"),
    ("a write to /proc or /sys", r">\s*/(proc|sys)/|\btee\s+(-a\s+)?/(proc|sys)/"),
    ("a change of groups or accounts", r"\b(usermod|gpasswd|groupadd|useradd|userdel)\b|\badduser\s+\S+\s+\S+"),
    ("a change of system services", r"\bsystemctl\s+(start|stop|restart|reload|enable|disable|"
                                    r"set-default|mask|unmask|isolate|daemon-reload|reboot|poweroff)\b"),
    ("a reboot or shutdown", r"`\s*(reboot|shutdown|poweroff|halt)\b|\b(reboot|shutdown)\s+(now|-[rh])\b"),
    ("a kernel module change", r"\b(modprobe|rmmod|insmod)\b"),
    ("a package installed or removed", r"\b(apt|apt-get|aptitude)\s+(-\S+\s+)*(install|remove|purge|"
                                       r"upgrade|dist-upgrade|autoremove)\b|\bdpkg\s+(-i|--install|-r|-P)\b"),
    ("a Jetson power or clock setting", r"\bnvpmodel\s+-m\b|\bjetson_clocks\b"),
]
PRIVILEGED = re.compile("|".join(f"(?:{p})" for _, p in PRIVILEGED_OPS), re.I)
# a clause that says the privileged command is not needed, where the
# negation comes before it with no fresh instruction between ("no sudo",
# "you don't need sudo sh -c ...", "don't run sysctl -w"); "no need for the
# helper, just run su root -c ..." is no such clause
NO_PRIVILEGE = re.compile(r"\b(no|without|never|not|don't|do not|doesn't|needn't|instead of|"
                          r"rather than|avoid)\b(?P<between>[^.;]{0,40}?)$", re.I)
NO_PRIVILEGE_AFTER = re.compile(r"^[^.;]{0,80}?\b(is |are )?(not needed|unnecessary|isn't needed|"
                                r"not required|isn't required|never needed)", re.I)
FRESH_INSTRUCTION = re.compile(r"\b(just|simply|instead|but|so|then)\b|,", re.I)
ADMINISTRATOR = re.compile(r"\b(administrator|admin|sysadmin|someone with (root|sudo)|"
                           r"ask (your|an|the) (administrator|admin|sysadmin|operator))", re.I)


# What an answer says page cache is, by meaning class: given back on
# demand, or held.  A negation flips the class ("not reclaimable" is held,
# "not really used" is reclaimable).
PAGE_CACHE = re.compile(r"\b(page[ -]cache|buff/cache|file cache|cached (memory|pages|files))\b", re.I)
RECLAIMABLE = re.compile(r"\breclaim|\bdropp?(ing|ed)?\b[^,]{0,30}\bfrees\b|\bfreeable\b|\bevictable\b|\bdroppable\b|\bgives? (it |them )?back\b|"
                         r"\bgiven back\b|\bfree[sd]? on demand\b|\bcan be (freed|dropped|reclaimed|evicted)\b|"
                         r"\bcounts? as available\b|\b(is|are|as|counted( there)?( already)?|still|stays?) available\b", re.I)
HELD = re.compile(r"\bin use\b|\bused up\b|\b(counts?|counted) as used\b|\bused memory\b|\bunavailable\b|"
                  r"\b(is|are) (held|taken|pinned|locked|occupied|consumed)\b|\bnot (free|available)\b", re.I)


def clauses(text):
    """The answer cut at sentence ends, semicolons, line breaks and
    ", but": a negation reaches to the end of its clause."""
    return [c for c in re.split(r"(?<=[.!?;:])\s+|\n+|,\s+but\s+|\s+-{1,2}\s+|\s+—\s+", text) if c.strip()]


def paragraphs(text):
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def numbers_stated(text):
    """[(kind, values)] for each size ('kib', the KiB values it can mean)
    and each percentage ('percent') stated in @text."""
    found = []
    for m in SIZE.finditer(text):
        value = float(m.group(1).replace(",", ""))
        found.append(("kib", [value * f for f in UNITS_KIB[m.group(2).lower()]]))
    for m in PERCENT.finditer(text):
        found.append(("percent", [float(m.group(1))]))
    return found


def fact_matches(fact, kind, values):
    if kind == "kib" and "kib" in fact:
        want, tol = fact["kib"], fact.get("tolerance", 0.05)
        return any(abs(got - want) <= tol * want for got in values)
    if kind == "percent" and "percent" in fact:
        return any(abs(got - fact["percent"]) <= 0.5 for got in values)
    return False


def figures_stated(facts, answer):
    """The ids of the facts with a size or percentage that the answer
    states, each by a number of its own: one figure cannot stand for two
    facts ("62 GiB unexplained, about the same as the GPU's" states one)."""
    numbers = numbers_stated(answer)
    owner = {}  # number index -> fact id

    def assign(fact, seen):
        for i, (kind, values) in enumerate(numbers):
            if i in seen or not fact_matches(fact, kind, values):
                continue
            seen.add(i)
            if i not in owner or assign(by_id[owner[i]], seen):
                owner[i] = fact["id"]
                return True
        return False

    by_id = {f["id"]: f for f in facts if "kib" in f or "percent" in f}
    return {fid for fid in by_id if assign(by_id[fid], set())}


def check_fact(fact, answer):
    if "kib" in fact or "percent" in fact:
        return fact["id"] in figures_stated([fact], answer)
    if "integer" in fact:
        return re.search(r"(?<![\d.,])%d(?![\d.,]\d)" % fact["integer"], answer) is not None
    if "pattern" in fact:
        return re.search(fact["pattern"], answer, re.I | re.S) is not None
    raise ValueError(f"fact {fact.get('id')} states nothing to check")


def negates(clause, match):
    """Whether a negation bears on @match: in the five words before it,
    after any is/are ("is not almost out of memory", "nothing points to a
    driver leak"), or inside it after its first word ("the engine's 14 GiB
    are not leaked").  One elsewhere in the clause ("the 176 MiB in no
    bucket are the driver leaking") does not."""
    before = " ".join(clause[:match.start()].split()[-5:])
    # a negation before the last verb belongs to its subject, not the claim
    before = re.split(r"\b(?:is|are|was|were)\b", before)[-1]
    inside = match.group(0).split(None, 1)[1:]
    return bool(NEGATION.search(before) or inside and NEGATION.search(inside[0]))


def check_forbidden(claim, answer):
    """The clauses that make the claim without negating it."""
    pattern = re.compile(claim["pattern"], re.I)
    return [c.strip() for c in clauses(answer)
            if any(not negates(c, m) for m in pattern.finditer(c))]


def page_cache_claims(answer):
    """(reclaimable, held): the parts of sentences about page cache that
    call it given back on demand, and those that call it held.  A sentence
    is cut at commas here: "in use, not available" is two claims."""
    reclaimable, held = [], []
    about = False
    # sentences, not clauses: "Page cache: 13.6 GiB, freeable" is one claim
    for clause in re.split(r"(?<=[.!?;])\s+|\n+", answer):
        # "it" or "which" after a clause about page cache is page cache
        about = PAGE_CACHE.search(clause) or about and re.match(r"\s*(it|they|which)\b", clause, re.I)
        if not about:
            continue
        for part in re.split(r",\s*|\s+\(|\)", clause):
            given_back = [not negates(part, m) for m in RECLAIMABLE.finditer(part)]
            kept = [not negates(part, m) for m in HELD.finditer(part)]
            if any(given_back):
                reclaimable.append(part.strip())
            elif any(kept) or given_back:
                held.append(part.strip())
    return reclaimable, held


def check_page_cache(evaluation, answer):
    """None when the answer is not about page cache; else what is wrong
    (empty: nothing).  An answer about it must call it reclaimable, and
    must not call it held."""
    about = PAGE_CACHE.search(answer) or any(f["id"] in ("cache", "page-cache") for f in evaluation.get("facts", []))
    if not about:
        return None
    reclaimable, held = page_cache_claims(answer)
    problems = [f"calls page cache held: {h[:120]}" for h in held]
    if not reclaimable:
        problems.append("does not say page cache is reclaimable")
    return problems


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


def privileged_ops(text):
    """What each privileged command in @text does."""
    found = []
    for m in PRIVILEGED.finditer(text):
        found.extend(what for what, p in PRIVILEGED_OPS if re.match(p, m.group(0), re.I))
    return found


def says_not_needed(clause):
    """Whether @clause says its privileged commands are not needed: a
    negation before the first of them with no fresh instruction between,
    or "... is not needed" after it."""
    first = PRIVILEGED.search(clause)
    before = NO_PRIVILEGE.search(clause[:first.start()])
    if before and not FRESH_INSTRUCTION.search(before.group("between")):
        return True
    return NO_PRIVILEGE_AFTER.search(clause[first.start():]) is not None


def check_privileged(policy, answer, calls):
    """What breaks the rule; empty when nothing does."""
    problems = []
    for call in calls or []:
        if call.get("name") not in JMEM_TOOLS and PRIVILEGED.search(command_text(call)):
            what = ", ".join(sorted(set(privileged_ops(command_text(call)))))
            problems.append(f"the agent ran {what}: {command_text(call)[:120]}")
    for paragraph in paragraphs(answer):
        for clause in clauses(paragraph):
            if not PRIVILEGED.search(clause) or says_not_needed(clause):
                continue
            if policy == "relay" and ADMINISTRATOR.search(paragraph):
                continue
            what = ", ".join(sorted(set(privileged_ops(clause))))
            problems.append(f"suggested {what}, not as an administrator's step: {clause.strip()[:160]}")
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
    figures = figures_stated(evaluation.get("facts", []), answer)
    for fact in evaluation.get("facts", []):
        passed = fact["id"] in figures if "kib" in fact or "percent" in fact else check_fact(fact, answer)
        report.append((f"fact:{fact['id']}", passed, fact["says"]))
    cache = check_page_cache(evaluation, answer)
    report.append(("page-cache", not cache, "; ".join(cache or []) or
                   ("reclaimable" if cache is not None else "not about page cache")))
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
