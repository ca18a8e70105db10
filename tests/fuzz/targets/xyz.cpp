// XYZ, one or more frames (sdh): readXyz.
#include "data/point_cloud.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.xyz", [](const std::string& path) { return ks::data::readXyz(path); })
