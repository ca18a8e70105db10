// Expression tables as TSV/CSV text (lrv): readExpressionText.
#include "data/expression_table.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("input.tsv", [](const std::string& path) { return ks::data::readExpressionText(path); })
