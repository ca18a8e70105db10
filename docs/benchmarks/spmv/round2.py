#!/usr/bin/env python3
"""The round-2 spmv benchmark against issue 15's goal: per matrix and precision, what `auto` chose and its time,
the fastest hand-written CUDA variant, and the faster cuSPARSE algorithm; the ratio cuSPARSE / auto (above 1:
auto is faster), how many matrices meet 1.0, and the geometric mean.
Usage: round2.py round2/spmv_*.csv > round2.md"""
import math
import sys

from goals import read_rows

rows = read_rows(sys.argv[1:])

print("| matrix | precision | rows | non-zeros | auto chose | auto ms | fastest hand-written | ms | best cuSPARSE "
      "| ms | cuSPARSE / auto | cuSPARSE / fastest ours |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
ratios, bestRatios = [], []
for name in dict.fromkeys(r["file"] for r in rows):
    group = [r for r in rows if r["file"] == name and r["outcome"] == "passed"]
    auto = next((r for r in group if r["variant"] == "auto"), None)
    mine = min((r for r in group if r["backend"] == "cuda" and r["variant"] != "auto"),
               key=lambda r: float(r["median_ms"]), default=None)
    lib = min((r for r in group if r["backend"] == "library"), key=lambda r: float(r["median_ms"]), default=None)
    if not auto or not mine or not lib:
        continue
    chose = auto["message"].split(":")[0].removeprefix("chose ")
    ratio = float(lib["median_ms"]) / float(auto["median_ms"])
    best = float(lib["median_ms"]) / float(mine["median_ms"])
    ratios.append(ratio)
    bestRatios.append(best)
    matrix, precision = name.rsplit("_", 1)
    nnz = int(float(auto["items"]))
    mark = "" if ratio >= 1.0 else " ✗"
    print(f"| {matrix} | {precision} | {int(auto['size']):,} | {nnz:,} | {chose} | {float(auto['median_ms']):.4f} "
          f"| {mine['variant']} | {float(mine['median_ms']):.4f} | {lib['variant']} | {float(lib['median_ms']):.4f} "
          f"| {ratio:.2f}×{mark} | {best:.2f}× |")


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


if ratios:
    met = sum(1 for r in ratios if r >= 1.0)
    print(f"\n`auto` at or above the best cuSPARSE algorithm on **{met} of {len(ratios)}** matrix/precision pairs; "
          f"geometric mean **{geomean(ratios):.2f}×** (the fastest hand-written variant per matrix: "
          f"{geomean(bestRatios):.2f}×). Goal: every pair ≥ 1.0×, geometric mean ≥ 1.25×.")
