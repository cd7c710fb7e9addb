#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validate a JSON document against a JSON Schema (draft 2020-12).

Usage: validate-json.py SCHEMA [FILE|-]

Reads FILE, or standard input when FILE is '-' or absent. The schemas beside
SCHEMA (*.schema.json) are known by their $id, so one may refer to another.
Exits 0 when the document is valid, 1 when it is not (every violation is printed with its
path), 2 when the schema or the document cannot be read or parsed.
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("validate-json: python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(2)


def reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def load(path, what):
    # Strict UTF-8 whatever the locale: invalid bytes make a document unreadable.
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
        return json.loads(data.decode("utf-8"), parse_constant=reject_constant)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print(f"validate-json: cannot read {what} {path}: {e}", file=sys.stderr)
        sys.exit(2)


def schemas_beside(path):
    """Every *.schema.json in SCHEMA's folder, by its $id."""
    folder = os.path.dirname(os.path.abspath(path))
    store = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".schema.json"):
            other = load(os.path.join(folder, name), "schema")
            if isinstance(other, dict) and "$id" in other:
                store[other["$id"]] = other
    return store


def make_validator(validator_class, schema, store):
    try:
        # jsonschema 4.18 and later resolve references through a registry
        from referencing import Registry, Resource
    except ImportError:
        # The older RefResolver joins references with urllib, which leaves
        # "urn:" ids alone unless told that they take relative references.
        import urllib.parse
        if "urn" not in urllib.parse.uses_relative:
            urllib.parse.uses_relative.append("urn")
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return validator_class(schema, resolver=resolver,
                               format_checker=validator_class.FORMAT_CHECKER)
    registry = Registry().with_resources(
        (uri, Resource.from_contents(other)) for uri, other in store.items())
    return validator_class(schema, registry=registry,
                           format_checker=validator_class.FORMAT_CHECKER)


def main(argv):
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    schema = load(argv[1], "schema")
    document = load(argv[2] if len(argv) == 3 else "-", "document")

    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"validate-json: {argv[1]} is not a valid schema: {e.message}", file=sys.stderr)
        return 2
    validator = make_validator(validator_class, schema, schemas_beside(argv[1]))
    try:
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    except (jsonschema.exceptions.RefResolutionError, LookupError) as e:
        print(f"validate-json: {argv[1]} refers to a schema that is not beside it: {e}",
              file=sys.stderr)
        return 2
    for e in errors:
        where = "/" + "/".join(str(p) for p in e.absolute_path)
        message = e.message if len(e.message) <= 300 else e.message[:300] + "…"
        print(f"{where}: {message}", file=sys.stderr)
    if errors:
        print(f"validate-json: {len(errors)} violation(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
