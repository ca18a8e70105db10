#pragma once

#include "data/dataset.h"
#include "data/read_options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ks::data {

/// An x/y series: the linreg workload's dataset.
struct Series2D {
    std::vector<double> x;
    std::vector<double> y;
    std::string xName = "x";
    std::string yName = "y";
    std::string storedType = "float64"; ///< value type in the file it came from
};

/// Reads CSV/TSV/whitespace text with two numeric columns (optional header row, '#' comments, CRLF, .gz).
Series2D readSeriesText(const std::string& path, const ReadOptions& options = {});
/// Reads 1-D float32/float64 datasets `x` and `y` of equal length from a group of an HDF5 file.
Series2D readSeriesHdf5(const std::string& path, const ReadOptions& options = {});
/// HDF5 by its signature, text otherwise; returns the dataset with its metadata.
Dataset loadSeries2D(const std::string& path, const ReadOptions& options = {});

void writeSeriesCsv(const std::string& path, const Series2D& series);
/// Writes /x and /y (float64, or float32 when `asFloat32`).
void writeSeriesHdf5(const std::string& path, const Series2D& series, bool asFloat32 = false);

/// The generator behind the built-in linreg data: y = slope·x + intercept + noise·N(0,1),
/// x uniform in [xOffset, xOffset + xSpan). Large offsets are where the four-sums formula loses digits.
struct SeriesGenerator {
    std::uint64_t n = 1'000'000;
    double slope = 2.5;
    double intercept = -1.25;
    double noise = 1.0;
    double xOffset = 0.0;
    double xSpan = 100.0;
    std::uint64_t seed = 1;
};
Series2D generateSeries(const SeriesGenerator& generator);
Dataset makeSeriesDataset(Series2D series, std::string name, std::string source);

} // namespace ks::data
