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


def svg(curves, path, title):
    width, height, left, right, top, bottom = 900, 520, 70, 190, 40, 50
    steps = max(len(v) for v in curves.values())
    top_loss = max(max(v[5:] or v) for v in curves.values())
    low_loss = min(min(v) for v in curves.values())
    x = lambda s: left + (width - left - right) * s / max(steps - 1, 1)  # noqa: E731
    y = lambda v: top + (height - top - bottom) * (top_loss - v) / max(top_loss - low_loss, 1e-9)  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="16">{title}</text>',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="black"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
             f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle" font-size="13">'
             f'training step (batch 128; 469 steps = 1 epoch)</text>',
             f'<text x="18" y="{(top + height - bottom) / 2}" font-size="13" transform="rotate(-90 18 '
             f'{(top + height - bottom) / 2})" text-anchor="middle">loss ({SMOOTH}-step moving average)</text>']
    for i in range(6):
        v = low_loss + (top_loss - low_loss) * i / 5
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" font-size="11">{v:.2f}</text>')
        parts.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{width - right}" y2="{y(v):.1f}" stroke="#e0e0e0"/>')
    for s in range(0, steps, 100):
        parts.append(f'<text x="{x(s):.1f}" y="{height - bottom + 16}" text-anchor="middle" font-size="11">{s}</text>')
    for n, (name, values) in enumerate(curves.items()):
        colour = COLOURS.get(name, "#7f7f7f")
        dash = ' stroke-dasharray="6 4"' if name == "pytorch" else ""
        points = " ".join(f"{x(s):.1f},{y(v):.1f}" for s, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"{dash} points="{points}"/>')
        ly = top + 20 + 22 * n
        parts.append(f'<line x1="{width - right + 12}" y1="{ly}" x2="{width - right + 40}" y2="{ly}" '
                     f'stroke="{colour}" stroke-width="2.5"{dash}/>')
        parts.append(f'<text x="{width - right + 46}" y="{ly + 4}" font-size="12">{name}</text>')
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
