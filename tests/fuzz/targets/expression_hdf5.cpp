// HDF5 expression matrices with their name datasets (lrv): readExpressionHdf5.
#include "data/expression_table.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.h5", [](const std::string& path) { return ks::data::readExpressionHdf5(path); })
