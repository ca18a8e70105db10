// The spmv x vector as text, one value a line: readVector.
#include "data/sparse_matrix.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("x.txt", [](const std::string& path) { return ks::data::readVector(path); })
