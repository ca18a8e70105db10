#!/usr/bin/env python3
"""Medians per label, mode and variant from a call's ab.csv (rows: label, mode, then the CLI's CSV columns)."""
import collections
import csv
import sys

for path in sys.argv[1:]:
    medians = collections.defaultdict(list)
    for row in csv.reader(open(path)):
        if len(row) < 16 or row[2] == "run_id":
            continue
        medians[(row[0], row[1], row[5])].append(float(row[14]))  # label, mode, variant: median_ms
    for (label, mode, variant), values in medians.items():
        print(path, label, mode, variant, " ".join(f"{v:.4f}" for v in values))
