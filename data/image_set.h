#pragma once

// Labelled image sets, the cnn workload's dataset: the value type and its rules (data/image_set/image_set.cpp), its
// readers (IDX as the MNIST family ships it, CIFAR-10 binary batches) and the synthetic generator, each one file of
// data/image_set/.

#include "data/dataset.h"
#include "data/read_options.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ks::data {

/// The number of classes every image set has: the network's last layer is FC 128 → 10.
inline constexpr std::uint32_t kImageClasses = 10;

/// N labelled images of C × H × W, pixels stored normalised: pixel = (raw − mean[c]) / std[c], with the mean and
/// standard deviation of channel c over the whole set (or over another set, after renormaliseImages).
struct ImageSet {
    std::uint32_t channels = 0;
    std::uint32_t height = 0;
    std::uint32_t width = 0;
    std::uint32_t classes = kImageClasses;
    std::vector<float> pixels; ///< N × C × H × W, image-major, then channel planes, rows, columns
    std::vector<std::uint8_t> labels; ///< N labels, each below `classes`
    std::vector<std::string> classNames; ///< empty, or one per class when the format or dataset names them
    std::vector<double> channelMean; ///< C means of the raw values, the offsets the pixels were normalised with
    std::vector<double> channelStd; ///< C standard deviations of the raw values, the scales likewise
    double rawMin = 0; ///< the smallest raw value in the set
    double rawMax = 0; ///< the largest raw value in the set
    std::string storedType = "uint8"; ///< raw value type in the file
    std::vector<std::string> sourceFiles; ///< the files read (base names), or the generator's description
    std::vector<std::string> notes; ///< what the reader chose: split, files, class names, the held-out split
    /// The held-out split found beside the training split (a dataset's test files, or more generated images), of the
    /// same shape and classes, its pixels on this set's scale (renormaliseImages with this set's mean and std); null
    /// when there is none. What the cnn workload scores its trained weights on; never trained on.
    std::shared_ptr<const ImageSet> heldOut;

    std::size_t size() const { return labels.size(); }
    std::size_t imageSize() const { return static_cast<std::size_t>(channels) * height * width; }
};

/// Checks the ImageSet invariants (non-zero shape, pixels = N × C × H × W, C means and stds, stds positive, labels
/// below `classes`, classNames empty or one per class; a held-out split valid itself, of the same shape and classes,
/// on the same scale); throws a DatasetError naming `file` and the first offending image otherwise.
void validateImageSet(const ImageSet& set, const std::string& file);

/// Fills set.pixels from raw values (N × C × H × W bytes, as the files store them) normalised with their own
/// per-channel mean and standard deviation, and sets channelMean, channelStd, rawMin and rawMax. A channel whose
/// values are all equal gets std 1 (its pixels become 0). The shape and labels must already be set; DatasetError
/// naming `file` when the float pixels would not fit in memory.
void normaliseImages(ImageSet& set, std::span<const std::uint8_t> raw, const std::string& file);

/// Re-expresses the pixels with another set's statistics (the usual choice for a test split: the train split's
/// mean and std), so both splits feed the network on the same scale. Throws std::invalid_argument when the counts
/// differ from the channel count or a std is not positive.
void renormaliseImages(ImageSet& set, const std::vector<double>& mean, const std::vector<double>& stdDev);

/// Makes `heldOut` the held-out split of `set`: its pixels renormalised with set's mean and std, a note on `set`
/// naming it. DatasetError naming `file` (the held-out images file) when its image shape or class count differs.
void attachHeldOut(ImageSet& set, ImageSet heldOut, const std::string& file);

// Reader parameters (ReadOptions::params; the default when absent):
//   split = train | test   which split a folder gives: IDX train-* or t10k-*/test-*; CIFAR-10 data_batch_*.bin or
//                          test_batch.bin. A single file is read as it is, whatever the split says.

/// The split parameter, checked: "train" when absent; DatasetError (place "parameter split") for any other value
/// than train or test.
std::string imageSplit(const ReadOptions& options, const std::string& file);

/// An IDX images file and its labels file.
struct IdxPair {
    std::string images;
    std::string labels;
};

/// The IDX pair a path names: an images file `*-images-idx3-ubyte[.gz]` with its labels file beside it (the same
/// prefix, `-labels-idx1-ubyte`, gzipped or not), the reverse for a labels file, or the split's pair in a folder
/// (train-*, or t10k-* / test-* for the test split). DatasetError naming what was looked for when a file is missing.
IdxPair findIdxPair(const std::string& path, const ReadOptions& options = {});

/// Reads IDX images (magic 0x00000803: unsigned bytes, rank 3, count × rows × columns, big-endian) and labels (magic
/// 0x00000801: unsigned bytes, rank 1), plain or gzip (recognised by its bytes), into a one-channel set. The headers
/// are checked before any pixel is converted: magic (a labels file where images belong and the reverse are named as
/// such), zero dimensions, file length against the header, counts that differ (both named), labels ≥ 10. Errors
/// place a byte offset (of the decompressed stream for gzip) or a label index. Fashion-MNIST's class names are kept
/// when the path says fashion.
ImageSet readIdx(const IdxPair& files, const ReadOptions& options = {});

/// The CIFAR-10 binary files a path names: the file itself, or in a folder all data_batch_N.bin in order of N
/// (train) or test_batch.bin (test). DatasetError when a folder has none.
std::vector<std::string> findCifarBatches(const std::string& path, const ReadOptions& options = {});

/// Reads CIFAR-10 binary batches (records of 1 label byte and 3,072 pixel bytes: the R, G and B planes of 32 × 32)
/// into one three-channel set, in file order. Every file's size is checked before anything is read: empty, not a
/// multiple of 3,073 (a multiple of 3,074 is named as CIFAR-100, whose records carry 2 label bytes), or more than
/// the memory available; labels ≥ 10 are errors naming the record and its byte offset. Class names from
/// batches.meta.txt beside the files, else CIFAR-10's own.
ImageSet readCifar10(const std::vector<std::string>& files, const ReadOptions& options = {});

/// The generator behind the built-in cnn data: images of `classes` classes, balanced (labels a seeded shuffle of
/// i mod classes), each a class-dependent pattern a small CNN can learn — stripes whose orientation and frequency
/// follow the class, and a bright blob at a class-dependent place — with a random phase, a small random shift,
/// per-channel tints that follow the class, and Gaussian noise; quantised to bytes as a file would store them and
/// normalised like one. Image i depends only on (seed, i), so the set is the same for any thread count. `heldOut`
/// more images, drawn at the indices count … count + heldOut − 1 with balanced labels of their own, make the held-out
/// split (on the training images' scale); 0: none.
struct ImageGenerator {
    std::uint64_t count = 10'000;
    std::uint64_t heldOut = 0;
    std::uint32_t channels = 1;
    std::uint32_t height = 28;
    std::uint32_t width = 28;
    std::uint32_t classes = kImageClasses;
    std::uint64_t seed = 1;
};
ImageSet generateImages(const ImageGenerator& generator);

/// The dataset of kind "images" (size = N) with the image count, shape (C × H × W), classes (with their names when
/// known), per-channel mean and std, the raw value range, the stored type, the source files and the held-out split
/// (its files and image count, or none) as properties, and the set's notes. The content hash covers the held-out
/// split too (a run's accuracy depends on it). An invalid set is a DatasetError naming `source`.
Dataset makeImageDataset(ImageSet set, std::string name, std::string source);

/// A folder (CIFAR-10 batches, else an IDX pair of the split), or a file: an IDX images or labels file by name or
/// by its magic number, a CIFAR-10 batch by a `.bin` name or a size that is a multiple of 3,073; returns the dataset
/// with its metadata. DatasetError naming the path when it is neither.
/// When the train split is read (a folder with split=train, an IDX train-* file, a CIFAR-10 data_batch_N.bin) and
/// its test split lies in the same folder (the t10k-* or test-* IDX pair, test_batch.bin), that split is read too,
/// checked like any file, and becomes the set's held-out split (attachHeldOut); the notes say which files, or that
/// there was none. A malformed held-out file is an error naming it.
Dataset loadImageSet(const std::string& path, const ReadOptions& options = {});

} // namespace ks::data
