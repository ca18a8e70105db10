// The reader guess from a file's name and first bytes: sniffDatasetKinds (never throws).
#include "data/sniff.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.txt", [](const std::string& path) { return ks::data::sniffDatasetKinds(path); })
