#!/usr/bin/env python3
"""Turns KernelScope result CSVs into markdown tables: median time per variant and size, with GB/s, % of the
measured ceiling and the outcome. Usage: summarize.py FILE.csv [...] > table.md"""
import csv
import sys
from collections import OrderedDict


def fmt_size(n):
    n = int(n)
    if n >= 1024 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def table(path):
    rows = list(csv.DictReader(open(path, newline="")))
    if not rows:
        return f"{path}: no rows\n"
    variants = list(OrderedDict.fromkeys(r["variant"] for r in rows))
    sizes = sorted({int(r["size"]) for r in rows})
    cell = {(r["variant"], int(r["size"])): r for r in rows}
    out = [f"**{path.split('/')[-1]}** — {rows[0]['params']}, dataset {rows[0]['dataset']}\n"]
    out.append("median ms (GB/s, % of measured read bandwidth); `!` marks an incorrect result, `-` a skipped run\n")
    out.append("| size | " + " | ".join(variants) + " |")
    out.append("|---|" + "---|" * len(variants))
    for n in sizes:
        line = [fmt_size(n)]
        for v in variants:
            r = cell.get((v, n))
            if r is None or r["outcome"] in ("skipped", "failed") or not r["median_ms"] or r["repetitions"] == "0":
                line.append("-" if r is None or r["outcome"] == "skipped" else r["outcome"])
                continue
            mark = "!" if r["outcome"] == "incorrect" else ""
            pct = f", {float(r['pct_of_peak']):.0f}%" if float(r["peak_value"] or 0) > 0 else ""
            line.append(f"{float(r['median_ms']):.4g}{mark} ({float(r['gb_per_s']):.0f} GB/s{pct})")
        out.append("| " + " | ".join(line) + " |")
    return "\n".join(out) + "\n"


def deltas(path):
    rows = list(csv.DictReader(open(path, newline="")))
    out = [f"**{path.split('/')[-1]}** — {rows[0]['dataset']}, {rows[0]['params']}\n"]
    out.append("| variant | outcome | median ms | delta (max rel err) | details |")
    out.append("|---|---|---|---|---|")
    for r in rows:
        out.append(f"| {r['variant']} | {r['outcome']} | {r['median_ms']} | {r['delta_value']} | {r['delta_details']} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    mode = "table"
    for arg in sys.argv[1:]:
        if arg == "--deltas":
            mode = "deltas"
            continue
        print(table(arg) if mode == "table" else deltas(arg))
