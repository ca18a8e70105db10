// Matrix Market (.mtx, gzip recognised by its bytes): readMatrixMarket.
#include "data/sparse_matrix.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.mtx", [](const std::string& path) { return ks::data::readMatrixMarket(path); })
