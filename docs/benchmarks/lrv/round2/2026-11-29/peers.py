# cuBLAS peers for lrv's tensor-core kernel, timed like the product (CUDA events, warm-up, medians, L2 flushed):
# DGEMM C = A·Aᵀ (the whole p × p Gram matrix) through PyTorch, and DSYRK (its lower triangle only) through CuPy's
# cuBLAS binding, on N × p centred-log-sized random matrices. Usage: python3 peers.py
import statistics

import cupy
from cupy import cublas
import torch


def timed(fn, flush, reps=50):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        flush.zero_()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
print(torch.cuda.get_device_name(), "torch", torch.__version__, "cupy", cupy.__version__)
for n, p in ((80, 10000), (200, 30000)):
    a = torch.randn(p, n, dtype=torch.float64, device="cuda")
    c = torch.empty(p, p, dtype=torch.float64, device="cuda")
    gemm = timed(lambda: torch.mm(a, a.t(), out=c), flush)
    ac = cupy.asarray(a)
    cc = cupy.zeros((p, p), dtype=cupy.float64)
    torch.cuda.synchronize()
    syrk = timed(lambda: cublas.syrk("N", ac, out=cc, alpha=1.0, beta=0.0, lower=True), flush)
    flop = 2.0 * p * p * n
    print(f"{n}x{p}: DGEMM {gemm:.4f} ms ({flop / gemm / 1e9:.1f} TFLOP/s); "
          f"DSYRK {syrk:.4f} ms ({flop / 2 / syrk / 1e9:.1f} TFLOP/s of the triangle)")
