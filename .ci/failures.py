#!/usr/bin/env python3
"""After a failed "meson test": each failed test's name and the end of its
output, printed last, where a reader of CI's tail will see them.

Usage: failures.py BUILDDIR
"""
import json
import os
import sys

LINES = 60

log = os.path.join(sys.argv[1], "meson-logs", "testlog.json")
try:
    with open(log) as f:
        tests = [json.loads(line) for line in f if line.strip()]
except OSError as e:
    sys.exit("failures.py: %s" % e)
bad = [t for t in tests if t["result"] in ("FAIL", "TIMEOUT", "ERROR",
                                           "UNEXPECTEDPASS")]
for t in bad:
    out = (t.get("stdout") or "").splitlines()
    print("==== %s: %s (status %s), last %d lines of %d ====" %
          (t["name"], t["result"], t["returncode"], min(LINES, len(out)),
           len(out)))
    print("\n".join(out[-LINES:]))
print("==== %d failed of %d ====" % (len(bad), len(tests)))
