#!/usr/bin/env python3
"""Medians per call, matrix and build from ab/call*/ab.csv (rows prefixed `matrix-precision,build,` before the CLI's
own CSV row). Usage: summarise.py > medians.txt"""
import csv
import glob
import io
from collections import defaultdict

for path in sorted(glob.glob("ab/call*/ab.csv")):
    lines = open(path).read().splitlines()
    header = next(l for l in lines if l.split(",")[2] == "run_id")
    fields = header.split(",", 2)[2].split(",")
    runs = defaultdict(list)
    for line in lines:
        label, build, rest = line.split(",", 2)
        row = next(csv.reader(io.StringIO(rest)))
        if row[0] == fields[0]:
            continue
        r = dict(zip(fields, row))
        runs[(label, r["variant"], build)].append(float(r["median_ms"]))
    print(path.split("/")[1])
    for (label, variant, build), ms in runs.items():
        print(f"  {label:10} {variant:14} {build:6} " + " ".join(f"{m:.4f}" for m in ms))
