// The spmv x vector as an HDF5 1-D dataset: readVector.
#include "data/sparse_matrix.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("x.h5", [](const std::string& path) { return ks::data::readVector(path); })
