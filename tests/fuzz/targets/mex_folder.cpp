// 10x Genomics MEX folders (spmv): readMexFolder. One input holds the folder's three files, matrix.mtx,
// features.tsv and barcodes.tsv, in that order, cut by kFileSeparator; a part the input does not give is absent.
#include "data/sparse_matrix.h"
#include "tests/fuzz/fuzz_support.h"

#include <array>

namespace {
const std::array<const char*, 3> kParts = {"mex/matrix.mtx", "mex/features.tsv", "mex/barcodes.tsv"};
}

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    ks::fuzz::initialise();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::vector<std::string_view> pieces = ks::fuzz::splitInput(data, size, kParts.size());
    for (std::size_t k = 0; k < kParts.size(); ++k) {
        if (k < pieces.size())
            ks::fuzz::writeInput(kParts[k], pieces[k]);
        else
            ks::fuzz::removeInput(kParts[k]);
    }
    const std::string folder = ks::fuzz::inputPath("mex");
    return ks::fuzz::readExpectingDatasetError([&folder] { (void)ks::data::readMexFolder(folder); });
}
