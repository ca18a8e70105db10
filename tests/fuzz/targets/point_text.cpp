// Plain x y z text (sdh): readPointText.
#include "data/point_cloud.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.txt", [](const std::string& path) { return ks::data::readPointText(path); })
