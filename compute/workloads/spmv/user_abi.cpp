#include "compute/workloads/spmv/user_abi.h"

namespace ks::spmv {

namespace {

constexpr const char* kHeader
    = R"(// KernelScope user-kernel ABI for spmv: y = A * x with A in CSR (32-bit indices), in double.
// Every entry point is  extern "C" __global__ void NAME(ks_spmv_args a)  and runs in the order the file's
// "// kernelscope:" lines declare, on one stream.
struct ks_spmv_args {
    int rows;                         // A is rows x cols with nnz stored entries (any of them may be 0)
    int cols;
    int nnz;
    const int* row_ptr;               // rows + 1 offsets: row r's entries are [row_ptr[r], row_ptr[r + 1])
    const int* col_idx;               // nnz column indices
    const double* values;             // nnz values
    const double* x;                  // cols values
    double* y;                        // out: rows values; NaN before the run, so a row no kernel writes shows
    void* scratch;                    // the declared scratch= bytes, zeroed before every repetition; null when none
    unsigned long long scratch_bytes;
};
)";

constexpr const char* kTemplate
    = R"(// An spmv kernel for KernelScope: one thread per row (the seed's scalar CSR kernel).
// Compile it with  kernelscope-cli compile --workload spmv --kernel this.cu
//
// Launches, in order (formulas over rows, cols, nnz and sm_count: integers, + - * /, ceil, floor, min, max):
// kernelscope: kernel=row_per_thread block=256 grid=ceil(rows/256)

extern "C" __global__ void row_per_thread(ks_spmv_args a)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= a.rows)
        return;
    double sum = 0.0;
    for (int k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k)
        sum += a.values[k] * a.x[a.col_idx[k]];
    a.y[row] = sum;
}
)";

} // namespace

const UserKernelAbi& userKernelAbi()
{
    static const UserKernelAbi abi {
        "spmv", "ks_spmv_args", kHeader, kTemplate, {"rows", "cols", "nnz"}, sizeof(UserKernelArgs)};
    return abi;
}

} // namespace ks::spmv
