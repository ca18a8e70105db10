#!/usr/bin/env python3
"""Summarises a cnn benchmark run (run.sh's output folder): the time-per-step table against PyTorch, the goals, and
the loss curves of 2 epochs as an SVG (convert it to PNG with ImageMagick). Python's standard library only.

Usage: summarize.py FOLDER [--svg loss_curves.svg]
"""
import argparse
import csv
import json
import os

CURVE_VARIANTS = ["v2_atomics", "v3_atomic_free", "tensor_core_tf32", "graph_fused", "cudnn"]
COLOURS = {"v2_atomics": "#d62728", "v3_atomic_free": "#ff7f0e", "tensor_core_tf32": "#9467bd",
           "graph_fused": "#2ca02c", "cudnn": "#1f77b4", "pytorch": "#000000"}
SMOOTH = 25  # steps in the moving average drawn


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def facts(text):
    out = {}
    for item in filter(None, (text or "").split(";")):
        key, _, value = item.partition("=")
        out[key] = float(value)
    return out


def moving_average(values, window):
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def panel(parts, curves, box, steps, label, zero_line=False):
    """One plot of `curves` in box = (left, top, right, bottom) pixels, its y range fitted to the values."""
    left, top, right, bottom = box
    values = [v for c in curves.values() for v in c]
    high, low = max(values), min(values)
    if zero_line:
        high, low = max(high, -low), -max(high, -low)
    span = max(high - low, 1e-9)
    x = lambda s: left + (right - left) * s / max(steps - 1, 1)  # noqa: E731
    y = lambda v: top + (bottom - top) * (high - v) / span  # noqa: E731
    parts.append(f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="black"/>')
    parts.append(f'<text x="{left + 8}" y="{top - 6}" font-size="13">{label}</text>')
    for i in range(5):
        v = low + span * i / 4
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11">{v:.3g}</text>')
        parts.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{right}" y2="{y(v):.1f}" stroke="#e0e0e0"/>')
    for st in range(0, steps, 100):
        parts.append(f'<text x="{x(st):.1f}" y="{bottom + 15}" text-anchor="middle" font-size="11">{st}</text>')
    for name, values in curves.items():
        colour = COLOURS.get(name, "#7f7f7f")
        dash = ' stroke-dasharray="6 4"' if name == "pytorch" else ""
        points = " ".join(f"{x(st):.1f},{y(v):.1f}" for st, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.4"{dash} points="{points}"/>')


def svg(curves, path, title):
    """The loss curves, and below them each curve's difference from PyTorch's (when PyTorch ran)."""
    width, height, left, right = 960, 700, 70, 770
    steps = max(len(v) for v in curves.values())
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{(left + right) / 2}" y="24" text-anchor="middle" font-size="16">{title}</text>']
    panel(parts, curves, (left, 60, right, 380), steps, f"training loss ({SMOOTH}-step moving average)")
    if "pytorch" in curves:
        peer = curves["pytorch"]
        diffs = {k: [a - b for a, b in zip(v, peer)] for k, v in curves.items() if k != "pytorch"}
        panel(parts, diffs, (left, 440, right, 650), steps,
              "difference from PyTorch's loss (same moving average)", zero_line=True)
    parts.append(f'<text x="{(left + right) / 2}" y="{height - 12}" text-anchor="middle" font-size="13">'
                 f'training step (batch 128; 469 steps = 1 epoch of 60,000 images)</text>')
    for n, name in enumerate(curves):
        colour = COLOURS.get(name, "#7f7f7f")
        dash = ' stroke-dasharray="6 4"' if name == "pytorch" else ""
        ly = 80 + 22 * n
        parts.append(f'<line x1="{right + 20}" y1="{ly}" x2="{right + 48}" y2="{ly}" stroke="{colour}" '
                     f'stroke-width="2.5"{dash}/>')
        parts.append(f'<text x="{right + 54}" y="{ly + 4}" font-size="12">{name}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("folder")
    p.add_argument("--svg", default=None)
    args = p.parse_args()
    d = args.folder

    peer = {}
    if os.path.exists(os.path.join(d, "pytorch_times.csv")):
        for r in rows(os.path.join(d, "pytorch_times.csv")):
            if r.get("shape", "fashion") == "fashion":
                peer[(int(r["batch"]), r["mode"])] = float(r["median_ms"])
    print("| batch | " + " | ".join(CURVE_VARIANTS) + " | PyTorch eager | PyTorch graph |")
    print("|---" * (len(CURVE_VARIANTS) + 3) + "|")
    device = ""
    for b in (32, 64, 128, 256):
        path = os.path.join(d, f"cnn_fashion_b{b}.csv")
        if not os.path.exists(path):
            continue
        by = {r["variant"]: r for r in rows(path)}
        cells = []
        for v in CURVE_VARIANTS:
            r = by.get(v)
            if r is None or r["outcome"] not in ("passed", "incorrect"):
                cells.append("—" if r is None else r["outcome"])
                continue
            device = r["device_name"] + ", driver " + r["driver_version"]
            cells.append(f'{float(r["median_ms"]):.3f}' + ("" if r["outcome"] == "passed" else " (incorrect)"))
        eager, graph = peer.get((b, "eager")), peer.get((b, "cuda_graph"))
        cells += [f"{eager:.3f}" if eager else "—", f"{graph:.3f}" if graph else "—"]
        print(f"| {b} | " + " | ".join(cells) + " |")
    print(f"\nDevice: {device}\n")

    print("| batch 128 | Delta | deterministic | epoch 1 mean loss | epoch 2 mean loss | accuracy after 1 | after 2 |")
    print("|---|---|---|---|---|---|---|")
    curves = {}
    per_epoch = 469
    epochs = {}
    for steps in (469, 938):
        path = os.path.join(d, f"cnn_train_{steps}.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for s in json.load(f)["summaries"]:
                epochs.setdefault(s["variant"], {})[steps] = s
    for v, runs in epochs.items():
        full = runs.get(938)
        losses = full["sample_metrics"] if full else []
        if losses:
            curves[v] = moving_average(losses, SMOOTH)
        means = [sum(losses[e * per_epoch:(e + 1) * per_epoch]) / per_epoch for e in range(2)] if losses else []
        acc = [facts_of(runs.get(k)).get("accuracy") for k in (469, 938)]
        print(f"| {v} | {fmt(full and full['delta_value'])} | {full and full['deterministic']} | "
              + " | ".join(f"{m:.4f}" for m in means) + " | "
              + " | ".join(f"{a:.2f} %" if a is not None else "—" for a in acc) + " |")
    train = os.path.join(d, "pytorch_train_b128.csv")
    if os.path.exists(train):
        losses = [float(r["loss"]) for r in rows(train)]
        curves["pytorch"] = moving_average(losses, SMOOTH)
        acc = {int(r["epoch"]): (float(r["mean_loss"]), float(r["test_accuracy_pct"]))
               for r in rows(os.path.join(d, "pytorch_accuracy_b128.csv"))}
        print(f"| pytorch | — | — | {acc[1][0]:.4f} | {acc[2][0]:.4f} | {acc[1][1]:.2f} % | {acc[2][1]:.2f} % |")
    if args.svg and curves:
        svg(curves, args.svg, "cnn on Fashion-MNIST: 2 epochs at batch 128, same weights and batches")


def facts_of(summary):
    if not summary:
        return {}
    f = summary.get("facts", {})
    return f if isinstance(f, dict) else facts(f)


def fmt(v):
    return f"{float(v):.2e}" if v not in (None, "", False) else "—"


if __name__ == "__main__":
    main()
