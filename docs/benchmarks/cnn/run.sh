#!/usr/bin/env bash
# cnn benchmark on Fashion-MNIST (FASHION: the folder of its IDX .gz files): every GPU variant's time per step at
# batch 32..256, then 1 and 2 epochs of training at batch 128 (loss of every step, held-out accuracy), and the PyTorch
# peer on the same GPU from the same initial weights on the same batches (pytorch_peer.py). Also the CIFAR-10 shape
# (3 × 32 × 32, generated images) at batch 128.
# Needs CLI (path to kernelscope-cli) and OUT (where CSVs go); FASHION defaults to Debian's folder, else .fashion.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
FASHION=${FASHION:-/usr/share/datasets/fashion-mnist}
[ -f "$FASHION/train-images-idx3-ubyte.gz" ] || FASHION=$PWD/.fashion
train="$FASHION/train-images-idx3-ubyte.gz"
gpu=v2_atomics,v3_atomic_free,tensor_core_tf32,graph_fused,cudnn
# The initial weights every variant starts from: one step at learning rate 0 leaves them as they are.
"$CLI" run -w cnn -i "$train" --variant cpu_openmp -p steps=1 -p lr=0 -p batch=1 -p eval=0 \
    --output "$OUT/initial_weights.csv" --quiet
for b in 32 64 128 256; do
    "$CLI" run -w cnn -i "$train" --variant "$gpu" -p steps=200 -p batch=$b -p eval=0 --no-calibrate \
        --csv "$OUT/cnn_fashion_b$b.csv" --quiet
done
"$CLI" run -w cnn --generate images=10000,channels=3,height=32,width=32 --variant "$gpu" -p steps=200 -p batch=128 \
    -p eval=0 --no-calibrate --csv "$OUT/cnn_cifar_shape_b128.csv" --quiet
# 469 steps of 128 images: one epoch of 60,000.
for steps in 469 938; do
    "$CLI" run -w cnn -i "$train" --variant "$gpu" -p steps=$steps -p batch=128 -p eval=10000 --no-calibrate \
        --csv "$OUT/cnn_train_${steps}.csv" --json "$OUT/cnn_train_${steps}.json" --quiet
done
python3 "$here/pytorch_peer.py" --data "$FASHION" --weights "$OUT/initial_weights.csv" --out "$OUT"
