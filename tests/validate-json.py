#!/usr/bin/env python3
"""Validate a JSON document against a JSON Schema (draft 2020-12).

Usage: validate-json.py SCHEMA [FILE|-]

Reads FILE, or standard input when FILE is '-' or absent. Exits 0 when the
document is valid, 1 when it is not (every violation is printed with its
path), 2 when the schema or the document cannot be read or parsed.
"""
import json
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
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
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
