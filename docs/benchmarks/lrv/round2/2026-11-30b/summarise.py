#!/usr/bin/env python3
"""Each build's median times (ranges over its runs) in a call's ab.csv: rows `size,build,` + the CLI's CSV row."""
import collections
import csv
import sys

for path in sys.argv[1:]:
    runs = collections.OrderedDict()
    for row in csv.reader(open(path)):
        if row[2] == "run_id":
            continue
        runs.setdefault((row[0], row[1]), []).append(float(row[14]))
    print(path)
    for (size, build), v in runs.items():
        print(f"  {size:>4} {build:28s} {min(v):.4f}–{max(v):.4f} ms ({len(v)})")
