// CIFAR-10 binary batches (cnn): readCifar10 on one file.
#include "data/image_set.h"
#include "tests/fuzz/fuzz_support.h"

KS_FUZZ_ONE_FILE_TARGET("data_batch_1.bin", [](const std::string& path) { return ks::data::readCifar10({path}); })
