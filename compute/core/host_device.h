#pragma once

/// Marks small inline functions that both host code and CUDA kernels call (plain C++ when not compiled by nvcc).
#ifdef __CUDACC__
#define KS_HOST_DEVICE __host__ __device__
#else
#define KS_HOST_DEVICE
#endif
