#pragma once

// Point clouds, the sdh workload's dataset: the value type, its readers (XYZ, PDB, PLY, plain x y z text, HDF5
// N×3 or frames×N×3) and generators. Each format is one file of data/point_cloud/.

#include "data/dataset.h"
#include "data/read_options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ks::data {

/// N points in 3-D, structure-of-arrays, in the file's units (Å for PDB).
struct PointCloud {
    std::vector<double> x, y, z;
    std::string storedType = "float64"; ///< value type in the file: float64, float32, text
    std::vector<std::string> notes; ///< what the reader chose: frame or model read, records skipped

    std::size_t size() const { return x.size(); }
};

// Reader parameters (ReadOptions::params; the default when absent):
//   frame = N   the frame (XYZ multi-frame, HDF5 frames × N × 3) or model (PDB MODEL/ENDMDL) to read, from 1
// NaN and infinite coordinates are errors unless ReadOptions::allowNonFinite.

/// XYZ: a count line, a comment line, then `element x y z` rows (more columns ignored), repeated per frame; the
/// first frame unless `frame` is given. A file whose first line holds three numbers is read as headerless x y z
/// text. DatasetError for a count line that disagrees with the rows, short lines, non-numeric fields.
PointCloud readXyz(const std::string& path, const ReadOptions& options = {});
/// PDB: x, y, z from the fixed columns 31–38, 39–46, 47–54 of ATOM and HETATM records (never split on
/// whitespace); the first MODEL unless `frame` is given; every other record ignored; serial numbers past 99,999
/// (hybrid-36, hex) do not matter. DatasetError for a short or non-numeric coordinate field, or no atoms.
PointCloud readPdb(const std::string& path, const ReadOptions& options = {});
/// PLY: ascii, binary_little_endian or binary_big_endian; vertex x, y, z of any numeric type (char … double,
/// int8 … float64), other properties and elements skipped. DatasetError for a bad header, a missing x/y/z, a
/// truncated body.
PointCloud readPly(const std::string& path, const ReadOptions& options = {});
/// Plain text: `x y z` per line, whitespace or comma separated (a header line of names is skipped; # comments).
PointCloud readPointText(const std::string& path, const ReadOptions& options = {});
/// HDF5: an N × 3 float dataset, or frames × N × 3 (frame chosen by `frame`), chosen by ReadOptions::h5Path or as
/// the file's only candidate. DatasetError for a wrong rank or shape (naming the dataset and its extents).
PointCloud readPointHdf5(const std::string& path, const ReadOptions& options = {});
/// Writes an N × 3 float64 dataset `/points`.
void writePointHdf5(const std::string& path, const PointCloud& cloud);

/// The generators behind the built-in sdh data.
enum class CloudShape {
    UniformBox, ///< uniform in [0, box)³ (the seed's setting)
    GaussianClusters, ///< `clusters` Gaussian blobs of standard deviation `spread`·box, centres uniform in the box
};
struct CloudGenerator {
    CloudShape shape = CloudShape::UniformBox;
    std::uint64_t points = 10'000;
    double box = 23'000.0; ///< edge of the box (the seed's project used 23,000)
    std::uint64_t clusters = 8;
    double spread = 0.03;
    std::uint64_t seed = 1;
};
PointCloud generateCloud(const CloudGenerator& generator);

/// The dataset of kind "points" (size = points) with the count, the bounding box, its diagonal and the stored
/// type as properties, and the cloud's notes. NaN/Inf coordinates are a DatasetError.
Dataset makePointDataset(PointCloud cloud, std::string name, std::string source);

/// By extension (.xyz, .pdb/.ent, .ply, .h5/.hdf5 or the HDF5 signature; anything else as plain text, .gz
/// allowed for the text formats); returns the dataset with its metadata.
Dataset loadPointCloud(const std::string& path, const ReadOptions& options = {});

} // namespace ks::data
