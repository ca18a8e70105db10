// PLY, ascii and binary (sdh): readPly.
#include "data/point_cloud.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.ply", [](const std::string& path) { return ks::data::readPly(path); })
