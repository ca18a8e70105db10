#pragma once

// The output files of compute/, the CLI and the GUI are written as data/'s writers write theirs: the class lives in
// data/ (the lowest layer that writes files) and keeps its names here.

#include "data/atomic_file.h"

namespace ks {

using data::AtomicFile;
using data::OutputError;
using data::outputProblem;
using data::outputTarget;

} // namespace ks
