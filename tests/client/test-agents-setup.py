#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Where agents find jmem: docs/agents/ and the installed Skill. TAP.

- docs/mcp.md links every file of docs/agents/, so that what it shows is
  what the tests read (tests/mcp/test-mcp-agents.mjs parses and starts the
  client snippets);
- docs/agents/server.json, the MCP registry entry, is valid against the
  registry's schema 2025-12-11 (a copy in fixtures/mcp-registry/, its source in its
  $comment) and names this build's version;
- the Skill as `meson install` places it (read from `meson introspect
  --installed`) has a SKILL.md whose front matter the Agent Skills format
  requires: a name that is the folder's, a description;
- each `ln -s` that docs/mcp.md gives links the installed Skill's folder,
  under the Skill's own name, into a folder an agent reads skills from.

Usage: test-agents-setup.py SRC_DIR BUILD_DIR SCHEMA
"""
import json
import os
import re
import subprocess
import sys

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import tap

src, build, schema_path = sys.argv[1:4]
docs = os.path.join(src, "docs")
agents = os.path.join(docs, "agents")
SKILL_DATADIR = "share/jmem/skills/jetson-memory"


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def front_matter(text):
    m = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    assert m, "SKILL.md starts with no --- front matter ---"
    fields = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and not line.startswith((" ", "\t")):
            fields[key.strip()] = value.strip()
    return fields


def introspect_installed():
    out = subprocess.run(["meson", "introspect", build, "--installed"], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def installed_skill():
    """(source folder, installed folder) of the Skill."""
    for source, dest in introspect_installed().items():
        if dest.endswith("/" + SKILL_DATADIR):
            return source, dest
    raise AssertionError("meson installs nothing to .../" + SKILL_DATADIR)


@tap.test
def mcp_md_links_every_snippet():
    text = read(os.path.join(docs, "mcp.md"))
    files = sorted(os.listdir(agents))
    assert files, "docs/agents/ is empty"
    for name in files:
        assert f"(agents/{name})" in text, f"docs/mcp.md does not link agents/{name}"


@tap.test
def server_json_valid_against_the_registry_schema():
    schema = json.loads(read(schema_path))
    assert schema["$id"].endswith("/2025-12-11/server.schema.json"), schema["$id"]
    doc = json.loads(read(os.path.join(agents, "server.json")))
    assert doc.get("$schema") == schema["$id"], doc.get("$schema")
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "/", e.message)
              for e in validator.iter_errors(doc)]
    assert not errors, "; ".join(errors)


@tap.test
def server_json_names_this_version():
    doc = json.loads(read(os.path.join(agents, "server.json")))
    out = subprocess.run(["meson", "introspect", build, "--projectinfo"], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    version = json.loads(out)["version"]
    assert doc["version"] == version, f"server.json says {doc['version']}, meson.build {version}"


@tap.test
def installed_skill_has_its_front_matter():
    source, dest = installed_skill()
    fields = front_matter(read(os.path.join(source, "SKILL.md")))
    name = fields.get("name", "")
    assert name == os.path.basename(dest), f"name {name!r}, installed as {dest}"
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and len(name) <= 64, name
    assert 0 < len(fields.get("description", "")) <= 1024, "description"


@tap.test
def documented_links_reach_the_installed_skill():
    _, dest = installed_skill()
    links = re.findall(r"^ln -s (\S+) (\S+)$", read(os.path.join(docs, "mcp.md")), re.M)
    assert links, "docs/mcp.md gives no `ln -s` for the Skill"
    # the package's layout (--prefix=/usr), whatever this build's prefix
    packaged = "/usr/" + SKILL_DATADIR
    name = os.path.basename(dest)
    read_by_agents = ("~/.claude/skills/", ".claude/skills/", "~/.agents/skills/",
                      ".agents/skills/", "~/.codex/skills/")
    for target, link in links:
        assert target == packaged, f"ln -s {target}: the Skill is installed in {packaged}"
        folder, _, base = link.rpartition("/")
        assert base == name, f"{link}: the link must be named {name}, as the Skill"
        assert folder + "/" in read_by_agents, f"{link}: no agent reads skills from {folder}"


tap.main()
