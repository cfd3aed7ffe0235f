#!/usr/bin/env python3
"""Builds docs/conformance.md's pass matrix from the atk_replay_test output on stdin:
    ctest --test-dir build/release -L large -R atk_replay -V | scripts/atk-matrix.py
Each runner line "atk-matrix | <api> | <soc> | <cases> | <pass> | <documented> | <refused> |
<fail>" becomes one cell "pass / documented / refused / fail of cases" of a table with one
row per API, one column per profile."""
import re
import sys

LINE = re.compile(r"atk-matrix \| (\S+) \| (\S+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+)")
PROFILES = ["openaclnn-cpu", "Ascend910A", "Ascend910B3", "Ascend910_9391", "Ascend950PR_9599", "Ascend310P3"]

cells, apis, socs = {}, [], set()
for line in sys.stdin:
    match = LINE.search(line)
    if not match:
        continue
    api, soc, cases, passed, documented, refused, failed = match.groups()
    if api not in apis:
        apis.append(api)
    socs.add(soc)
    cells[api, soc] = f"{passed} / {documented} / {refused} / {failed} of {cases}"
columns = [s for s in PROFILES if s in socs] + sorted(socs - set(PROFILES))
names = {"openaclnn-cpu": "default"}
print("| API | " + " | ".join(names.get(s, s) for s in columns) + " |")
print("|---|" + "---|" * len(columns))
for api in apis:
    print(f"| {api} | " + " | ".join(cells.get((api, s), "not run") for s in columns) + " |")
