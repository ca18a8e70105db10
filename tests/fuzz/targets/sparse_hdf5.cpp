// HDF5 sparse groups (scipy, AnnData, 10x Genomics; spmv): readSparseHdf5.
#include "data/sparse_matrix.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.h5", [](const std::string& path) { return ks::data::readSparseHdf5(path); })
