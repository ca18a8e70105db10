#!/usr/bin/env python3
"""Summarises a per-block (or per-tile) timeline of dmmaPairsKernel written by the probe builds of
tried/block-probe.diff and tried/persistent-dynamic.diff: rows `block,sm,start,after_wait,after_gram,end` in GPU
global-timer nanoseconds (the persistent build writes its tile's start in the three first columns).

usage: blocks.py FILE[.gz] ...   (numpy)"""
import collections
import gzip
import sys

import numpy as np


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        d = np.loadtxt(f, delimiter=",", dtype=np.int64)
    block, sm, t0, t1, t2, t3 = d.T
    base = t0.min()
    return block, sm, *((t - base) / 1e3 for t in (t0, t1, t2, t3))


def occupancy(sm, begin, end, step=0.05):
    """Fraction of the time each count of intervals is open on an SM, over its busy span (first 5 µs and the last
    10 µs left out: the first wave's wait and the tail)."""
    grid = np.arange(0, end.max(), step)
    hist = collections.Counter()
    for s in set(sm):
        m = sm == s
        open_ = np.zeros(len(grid))
        for b, e in zip(begin[m], end[m]):
            i, j = np.searchsorted(grid, [b, e])
            open_[i:j] += 1
        lo, hi = np.searchsorted(grid, [begin[m].min() + 5, end[m].max() - 10])
        hist.update(int(k) for k in open_[lo:hi])
    total = sum(hist.values())
    return " ".join("%d: %.3f" % (k, hist[k] / total) for k in sorted(hist))


def main():
    for path in sys.argv[1:]:
        block, sm, t0, t1, t2, t3 = load(path)
        phases = (t1 > t0).any()
        print("%s: %d blocks on %d SMs, %.1f µs from the first block's start to the last one's end" % (
            path, len(block), len(set(sm)), t3.max()))
        steady = (block >= 1024) & (t3 < t3.max() - 10)
        rows = [("whole block", t3 - t0)]
        if phases:
            rows = [("start → past the wait", t1 - t0), ("the stages (gramTile)", t2 - t1),
                    ("epilogue and stores", t3 - t2)] + rows
        for name, x in rows:
            print("  %-24s median %6.2f µs  p10 %6.2f  p90 %6.2f  (steady state: median %.2f)" % (
                name, np.median(x), np.percentile(x, 10), np.percentile(x, 90), np.median(x[steady])))
        gaps, slots = [], []
        for s in set(sm):
            m = sm == s
            starts, ends = np.sort(t0[m]), np.sort(t3[m])
            k = int((starts < ends[0]).sum())  # blocks that start before the SM's first block ends: its slots
            slots.append(k)
            gaps += list(starts[k:] - ends[:len(starts) - k])
        gaps = np.array(gaps)
        print("  slots an SM: %s; a slot's gap from a block's end to the next one's start: median %.3f µs, mean %.3f,"
              " p10 %.3f, p90 %.3f" % (dict(collections.Counter(slots)), np.median(gaps), gaps.mean(),
                                     np.percentile(gaps, 10), np.percentile(gaps, 90)))
        print("  blocks resident on an SM (fraction of its time):", occupancy(sm, t0, t3))
        if phases:
            print("  blocks in their stages on an SM:", occupancy(sm, t1, t2))
        ends = np.array([t3[sm == s].max() for s in set(sm)])
        print("  SMs' last ends: %.1f … %.1f µs" % (ends.min(), ends.max()))


if __name__ == "__main__":
    main()
