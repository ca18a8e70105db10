#!/usr/bin/env python3
"""The PyTorch peer of the cnn benchmark: the same network, initial weights, batches and optimiser as KernelScope's cnn
workload, in float32 with TF32 off, on the same GPU.

- Weights: read from a KernelScope --output CSV (`array,index,value` rows: the weights KernelScope starts from).
- Data: Fashion-MNIST IDX files, normalised as KernelScope does (population mean and std of the training pixels, each
  byte value mapped through one float table); the test split with the training split's statistics.
- Batches: step k trains on images k*B ... k*B + B - 1 of the training set, wrapping around (no shuffling).
- Timing: CUDA events around each step, warm-up first, the median; eager, and the whole step captured in a CUDA graph.

Writes to OUT: pytorch_times.csv (batch, mode, median_ms, steps) and for the training runs pytorch_train_b<B>.csv
(step, loss) and pytorch_accuracy_b<B>.csv (epoch, steps, mean_loss, test_accuracy_pct).
"""
import argparse
import csv
import gzip
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def read_idx(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    magic, = struct.unpack(">I", data[:4])
    rank = magic & 0xFF
    dims = struct.unpack(">" + "I" * rank, data[4:4 + 4 * rank])
    return torch.frombuffer(bytearray(data[4 + 4 * rank:]), dtype=torch.uint8).reshape(dims)


def normalised(raw, mean, std):
    table = torch.tensor([(v - mean) / std for v in range(256)], dtype=torch.float64).float()
    return table[raw.long()]


def load_fashion(folder):
    train = read_idx(os.path.join(folder, "train-images-idx3-ubyte.gz"))
    train_labels = read_idx(os.path.join(folder, "train-labels-idx1-ubyte.gz"))
    test = read_idx(os.path.join(folder, "t10k-images-idx3-ubyte.gz"))
    test_labels = read_idx(os.path.join(folder, "t10k-labels-idx1-ubyte.gz"))
    counts = torch.bincount(train.flatten().long(), minlength=256).double()
    values = torch.arange(256, dtype=torch.float64)
    n = counts.sum()
    mean = float((counts * values).sum() / n)
    std = float(((counts * (values - mean) ** 2).sum() / n).sqrt())
    x = normalised(train, mean, std).unsqueeze(1)
    xt = normalised(test, mean, std).unsqueeze(1)
    return x, train_labels.long(), xt, test_labels.long()


class Net(nn.Module):
    def __init__(self, c, h, w):
        super().__init__()
        self.conv1 = nn.Conv2d(c, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = nn.Linear(64 * (h // 4) * (w // 4), 128)
        self.fc2 = nn.Linear(128, 10)

    def features(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return F.relu(self.fc1(torch.flatten(x, 1)))

    def forward(self, x):
        return self.fc2(self.features(x))


def load_weights(net, path):
    arrays = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            arrays.setdefault(row["array"], []).append(float(row["value"]))
    with torch.no_grad():
        for name, p in net.named_parameters():
            values = arrays[name]
            if len(values) != p.numel():
                sys.exit(f"{path}: {name} has {len(values)} values, the network needs {p.numel()}")
            p.copy_(torch.tensor(values, dtype=torch.float32).reshape(p.shape))


def batch_indices(step, batch, n, device):
    return (torch.arange(batch, device=device) + step * batch) % n


def make_step(net, optimiser):
    def step(images, labels):
        optimiser.zero_grad(set_to_none=False)
        loss = F.cross_entropy(net(images), labels)
        loss.backward()
        optimiser.step()
        return loss
    return step


def fresh(weights, shape, device, lr, momentum):
    net = Net(*shape).to(device)
    if weights:
        load_weights(net, weights)
    optimiser = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
    return net, optimiser


def median(values):
    values = sorted(values)
    m = len(values) // 2
    return values[m] if len(values) % 2 else 0.5 * (values[m - 1] + values[m])


def time_steps(args, x, y, batch, graphed, weights):
    net, optimiser = fresh(weights, tuple(x.shape[1:]), x.device, args.lr, args.momentum)
    step = make_step(net, optimiser)
    n = x.shape[0]
    static_x = torch.empty((batch,) + tuple(x.shape[1:]), device=x.device)
    static_y = torch.empty((batch,), dtype=torch.long, device=x.device)

    def gather(k):
        idx = batch_indices(k, batch, n, x.device)
        static_x.copy_(x[idx])
        static_y.copy_(y[idx])

    run = lambda: step(static_x, static_y)  # noqa: E731
    if graphed:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for k in range(3):
                gather(k)
                step(static_x, static_y)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        optimiser.zero_grad(set_to_none=False)
        with torch.cuda.graph(graph):
            static_loss = step(static_x, static_y)
        run = graph.replay
    times = []
    for k in range(args.warmup + args.steps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        gather(k)
        run()
        stop.record()
        stop.synchronize()
        if k >= args.warmup:
            times.append(start.elapsed_time(stop))
    return median(times)


def accuracy(net, xt, yt):
    correct = 0
    with torch.no_grad():
        for first in range(0, xt.shape[0], 1000):
            correct += (net(xt[first:first + 1000]).argmax(1) == yt[first:first + 1000]).sum().item()
    return 100.0 * correct / xt.shape[0]


def train(args, x, y, xt, yt, batch):
    """Eager training for `epochs` epochs of ceil(N / B) steps: every step's loss, each epoch's mean and accuracy."""
    net, optimiser = fresh(args.weights, tuple(x.shape[1:]), x.device, args.lr, args.momentum)
    step = make_step(net, optimiser)
    n = x.shape[0]
    per_epoch = (n + batch - 1) // batch
    losses = torch.empty(per_epoch * args.epochs, device=x.device)
    rows = []
    for epoch in range(args.epochs):
        for k in range(epoch * per_epoch, (epoch + 1) * per_epoch):
            idx = batch_indices(k, batch, n, x.device)
            losses[k] = step(x[idx], y[idx]).detach()
        mean = losses[epoch * per_epoch:(epoch + 1) * per_epoch].mean().item()
        rows.append((epoch + 1, (epoch + 1) * per_epoch, mean, accuracy(net, xt, yt)))
    with open(os.path.join(args.out, f"pytorch_train_b{batch}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "loss"])
        for k, v in enumerate(losses.tolist()):
            w.writerow([k, f"{v:.9g}"])
    with open(os.path.join(args.out, f"pytorch_accuracy_b{batch}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["epoch", "steps", "mean_loss", "test_accuracy_pct"])
        for r in rows:
            w.writerow([r[0], r[1], f"{r[2]:.6g}", f"{r[3]:.2f}"])
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True, help="folder of the Fashion-MNIST IDX .gz files")
    p.add_argument("--weights", required=True, help="KernelScope --output CSV of the initial weights")
    p.add_argument("--out", required=True)
    p.add_argument("--batches", default="32,64,128,256")
    p.add_argument("--train-batch", type=int, default=128)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--steps", type=int, default=200, help="timed steps per measurement")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.9)
    args = p.parse_args()

    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    device = torch.device("cuda")
    x, y, xt, yt = (t.to(device) for t in load_fashion(args.data))

    with open(os.path.join(args.out, "pytorch_times.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["shape", "batch", "mode", "median_ms", "steps", "device", "torch", "cudnn"])
        # CIFAR-10's shape (3 x 32 x 32) on random images: the time of a step does not depend on the values.
        cifar = torch.randn((10000, 3, 32, 32), device=device)
        cifar_labels = torch.randint(0, 10, (10000,), device=device)
        runs = [("fashion", int(b), x, y, args.weights) for b in args.batches.split(",")]
        runs.append(("cifar", 128, cifar, cifar_labels, None))
        for shape, batch, images, labels, weights in runs:
            for mode, graphed in (("eager", False), ("cuda_graph", True)):
                try:
                    ms = time_steps(args, images, labels, batch, graphed, weights)
                except RuntimeError as e:  # a capture PyTorch refuses is reported, not fatal
                    print(f"pytorch {shape} batch {batch} {mode}: {e}", file=sys.stderr)
                    continue
                w.writerow([shape, batch, mode, f"{ms:.6g}", args.steps, torch.cuda.get_device_name(),
                            torch.__version__, torch.backends.cudnn.version()])
                print(f"pytorch {shape} batch {batch} {mode}: {ms:.4f} ms/step", flush=True)
    for epoch, steps, mean, acc in train(args, x, y, xt, yt, args.train_batch):
        print(f"pytorch batch {args.train_batch} epoch {epoch} ({steps} steps): mean loss {mean:.4f}, "
              f"test accuracy {acc:.2f} %", flush=True)


if __name__ == "__main__":
    main()
