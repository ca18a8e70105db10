// HDF5 N × 3 and frames × N × 3 point datasets (sdh): readPointHdf5.
#include "data/point_cloud.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.h5", [](const std::string& path) { return ks::data::readPointHdf5(path); })
