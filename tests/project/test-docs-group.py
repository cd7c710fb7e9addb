#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One truth about joining the group, in every document that tells how:
polkit reads the group database at each call, so `usermod -aG jmem USER`
applies at the account's next call, with no new login (what
tests/e2e/test-e2e-exits.c proves with a real polkitd: an outsider added to the
group is let in at its next call). A document that shows the command says
so; none says to log in again.

Usage: test-docs-group.py SRC_DIR
Prints TAP.
"""
import glob
import os
import re
import sys

SRC = sys.argv[1]
# what would send a person to log in again
CONTRADICTIONS = re.compile(
    r"log (?:in|out) again|log ?out and|re-?log|relogin|new login is (?:needed|required)|"
    r"needs? a new login|newgrp|(?:start|open) a new session|after (?:the|a) next login",
    re.I)
# the command, in Markdown or in a man page (where "-" is written "\-")
COMMAND = re.compile(r"usermod \\?-aG")
SAYS = re.compile(r"next call", re.I)


def documents():
    paths = [os.path.join(SRC, "README.md")]
    paths += sorted(glob.glob(os.path.join(SRC, "docs", "*.md")))
    paths += sorted(glob.glob(os.path.join(SRC, "docs", "*.[18]")))
    paths += sorted(glob.glob(os.path.join(SRC, "skills", "*", "SKILL.md")))
    return paths


def flat(text):
    """The words of @text on one line: a sentence may span lines, and in a
    man page requests such as .B, or a quote's ">", split it further."""
    text = re.sub(r"^\.[A-Z]{1,2} ?", "", text, flags=re.M)
    text = re.sub(r"^> ?", "", text, flags=re.M)  # a Markdown quote
    return re.sub(r"\s+", " ", text.replace("\\-", "-"))


def main():
    results = []
    for path in documents():
        with open(path, encoding="utf-8") as f:
            text = flat(f.read())
        name = os.path.relpath(path, SRC)
        bad = CONTRADICTIONS.search(text)
        results.append((bad is None, "%s never says to log in again" % name,
                        bad and text[max(bad.start() - 120, 0):bad.end() + 40]))
        # field-guide.md only names the command as an example of an action
        if COMMAND.search(text) and not name.endswith("field-guide.md"):
            results.append((SAYS.search(text) is not None and
                            re.search(r"group database", text) is not None,
                            "%s says the group applies at the next call (polkit reads the group "
                            "database)" % name, None))
    print("1..%d" % len(results))
    for n, (ok, what, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
        if not ok and detail:
            print("# " + detail)
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
