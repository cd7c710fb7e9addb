#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The examples of docs/preflight.md, written out as files, so that the
tests run what the document shows and nothing else.

    preflight-examples.py DOC OUTDIR

writes OUTDIR/jmem-preflight (the shell script, executable),
OUTDIR/usage.sh (the lines that call it, one command a line) and
OUTDIR/units/NAME (each systemd unit or drop-in, by the file name its first
comment line gives)."""
import os
import re
import sys


def blocks(doc):
    """(language, text) of every fenced code block."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r'^```(\w+)\n(.*?)^```$', doc, re.M | re.S)]


def extract(doc_path, out):
    with open(doc_path, encoding='utf-8') as f:
        found = blocks(f.read())
    os.makedirs(os.path.join(out, 'units'), exist_ok=True)
    script = [t for lang, t in found if lang == 'sh' and '# jmem-preflight:' in t]
    usage = [t for lang, t in found if lang == 'sh' and t.startswith('jmem-preflight ')]
    units = [t for lang, t in found if lang == 'ini' and t.startswith('# /etc/systemd/system/')]
    assert len(script) == 1 and len(usage) == 1 and len(units) >= 3, (len(script), len(usage), len(units))
    path = os.path.join(out, 'jmem-preflight')
    with open(path, 'w') as f:
        f.write(script[0])
    os.chmod(path, 0o755)
    with open(os.path.join(out, 'usage.sh'), 'w') as f:
        f.write(usage[0])
    names = []
    for text in units:
        name = text.splitlines()[0][len('# /etc/systemd/system/'):].replace('/', '@')
        with open(os.path.join(out, 'units', name), 'w') as f:
            f.write(text)
        names.append(name)
    return names


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    extract(sys.argv[1], sys.argv[2])
