#!/usr/bin/env python3
"""The spmv benchmark against the issue's goals: per matrix and precision, the fastest hand-written CUDA variant
against the faster cuSPARSE algorithm, their geometric mean, and the share of the measured read bandwidth.
Usage: goals.py spmv_*.csv > goals.md"""
import csv
import math
import sys


def read_rows(paths):
    """Every row of the benchmark CSVs, each with "file": its file's name without spmv_ and .csv (round2.py too)."""
    rows = []
    for path in paths:
        for r in csv.DictReader(open(path, newline="")):
            r["file"] = path.split("/")[-1].removesuffix(".csv").removeprefix("spmv_")
            rows.append(r)
    return rows


def main():
    rows = read_rows(sys.argv[1:])
    print("| matrix | precision | rows | non-zeros | best hand-written | ms | % read ceiling | best cuSPARSE | ms "
          "| % read ceiling | speed-up over cuSPARSE |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for name in dict.fromkeys(r["file"] for r in rows):
        group = [r for r in rows if r["file"] == name and r["outcome"] == "passed"]
        if not group:
            continue
        mine = min((r for r in group if r["backend"] == "cuda"), key=lambda r: float(r["median_ms"]), default=None)
        lib = min((r for r in group if r["backend"] == "library"), key=lambda r: float(r["median_ms"]), default=None)
        if not mine or not lib:
            continue
        ratio = float(lib["median_ms"]) / float(mine["median_ms"])
        ratios.append(ratio)
        matrix, precision = name.rsplit("_", 1)
        nnz = int(float(mine["items"]))
        print(f"| {matrix} | {precision} | {mine['size']} | {nnz:,} | {mine['variant']} | {float(mine['median_ms']):.4f} "
              f"| {float(mine['pct_of_peak']):.0f} | {lib['variant']} | {float(lib['median_ms']):.4f} "
              f"| {float(lib['pct_of_peak']):.0f} | {ratio:.2f}× |")
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\nGeometric mean of the speed-ups over {len(ratios)} matrix/precision pairs: **{geomean:.2f}×**")


if __name__ == "__main__":
    main()
