// IDX image and label files (the MNIST family; cnn): readIdx. One input holds the images file, then the labels
// file after kFileSeparator; without a separator the labels file is empty.
#include "data/image_set.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    ks::fuzz::initialise();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::vector<std::string_view> pieces = ks::fuzz::splitInput(data, size, 2);
    ks::data::IdxPair files;
    files.images = ks::fuzz::writeInput("train-images-idx3-ubyte", pieces[0]);
    files.labels = ks::fuzz::writeInput("train-labels-idx1-ubyte", pieces.size() > 1 ? pieces[1] : "");
    return ks::fuzz::readExpectingDatasetError([&files] { (void)ks::data::readIdx(files); });
}
