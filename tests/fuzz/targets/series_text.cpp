// x/y series as CSV/TSV/whitespace text (linreg): readSeriesText.
#include "data/series2d.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.csv", [](const std::string& path) { return ks::data::readSeriesText(path); })
