// HDF5 x/y dataset pairs (linreg): readSeriesHdf5.
#include "data/series2d.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.h5", [](const std::string& path) { return ks::data::readSeriesHdf5(path); })
