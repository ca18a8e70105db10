#pragma once

// A Dataset as bytes, for the reader worker (cli/reader_worker.h) to hand what it read to its parent: the meta and
// each payload kind's fields in one compact binary form (native byte order: both ends are the same executable on
// the same machine). Bulk arrays are written straight from the vectors and read straight into them, so a dataset
// crosses with one serialisation pass and no copy beyond it.

#include "data/dataset.h"

#include <cstdint>
#include <stdexcept>

namespace ks::data::wire {

/// Writes `dataset` to `fd` from its current position: meta, then the payload of whichever kind it holds (series2d,
/// csr with its x, points, expression table, image set with its held-out split). Throws std::runtime_error when a
/// write fails (a full disk, a closed pipe) and std::logic_error for a payload kind it does not know.
void writeDataset(int fd, const Dataset& dataset);

/// Reads a dataset writeDataset wrote at [`offset`, `offset` + `bytes`) of `fd` (a file or memfd, read with pread).
/// When `release` is set, the bytes already read are given back to the file system as it goes (hole punching), so a
/// memfd does not hold the dataset a second time while it is rebuilt. Throws std::runtime_error for bytes that are
/// not a whole, well-formed dataset (every count is checked against the bytes left before anything is allocated).
Dataset readDataset(int fd, std::uint64_t offset, std::uint64_t bytes, bool release = false);

} // namespace ks::data::wire
