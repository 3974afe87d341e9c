#!/usr/bin/env python3
"""Validates scene files against docs/scene.schema.json: the schema says what the reader takes.
usage: check_scene_schema.py SCHEMA FILE... (exit 1 naming the first file and field that fails)"""
import json
import sys

import jsonschema


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            scene = json.load(f)
        error = jsonschema.exceptions.best_match(validator.iter_errors(scene))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            print(f"{path}: {where}: {error.message[:200]}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
