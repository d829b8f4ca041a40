#!/usr/bin/env python3
"""Checks the grammars trit makes of JSON schemas against a real validator.

For every *.json schema in --schemas, grammar_sample (tests/grammar/)
converts the schema to GBNF and walks the grammar at random, printing one
document per line; each document must parse as JSON (Python's json module)
and validate against the schema with the `jsonschema` package, formats
asserted (its format checker, with rfc3339-validator for time and
date-time). Several seeds per schema; the samples of a schema must not all
be alike (a walk stuck in one corner would prove little).

Prints one line per check and a closing "N passed, N failed" line; exits 1
when any check failed.
"""
import argparse
import json
import os
import subprocess
import sys

import jsonschema
from jsonschema import validators

passed = 0
failed = 0


def check(ok, what, detail=""):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok and detail:
        print(detail, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def validator_for(schema):
    cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def sample(tool, path, seed, count):
    run = subprocess.run([tool, path, str(seed), str(count)], capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        return None, run.stderr
    # split("\n"), not splitlines(): a document may hold U+2028 or U+0085 raw.
    return [json.loads(line) for line in run.stdout.split("\n") if line], ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", required=True, help="the grammar_sample program")
    parser.add_argument("--schemas", required=True, help="a folder of *.json schemas")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--count", type=int, default=100, help="documents per seed")
    args = parser.parse_args()

    # The validator asserts formats here (else this test would prove nothing about them).
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    check(not checker.conforms("2023-02-29", "date") and not checker.conforms("24:00:00Z", "time")
          and not checker.conforms("2024-01-01T12:00:00", "date-time") and checker.conforms("12:00:00Z", "time"),
          "the format checker rejects a bad date, time and date-time")

    names = sorted(n for n in os.listdir(args.schemas) if n.endswith(".json"))
    check(len(names) >= 20, f"{len(names)} schemas in {args.schemas}")
    for name in names:
        path = os.path.join(args.schemas, name)
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        validator = validator_for(schema)
        docs = []
        errors = []
        for seed in range(1, args.seeds + 1):
            texts, stderr = sample(args.sample, path, seed, args.count)
            if texts is None:
                errors.append(f"grammar_sample failed (seed {seed}): {stderr.strip()}")
                continue
            for text in texts:
                try:
                    doc = json.loads(text)
                except ValueError as e:
                    errors.append(f"not JSON: {text!r}: {e}")
                    continue
                problems = [e.message for e in validator.iter_errors(doc)]
                if problems:
                    errors.append(f"invalid: {text}: {problems[0]}")
                docs.append(text)
        distinct = len(set(docs))
        check(not errors and len(docs) == args.seeds * args.count,
              f"{name}: {len(docs)} sampled documents validate", "\n".join(errors[:10]))
        check(distinct >= 10, f"{name}: {distinct} distinct documents")
        if docs:
            print(f"  e.g. {min(docs, key=len)}  |  {max(docs, key=len)[:200]}", flush=True)

    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
