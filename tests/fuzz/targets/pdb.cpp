// PDB atom records (sdh): readPdb.
#include "data/point_cloud.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.pdb", [](const std::string& path) { return ks::data::readPdb(path); })
