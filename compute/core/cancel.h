#pragma once

// The run's stop request as CPU code checks it: the classes live in data/ (whose generators check it too) and keep
// their names here.

#include "data/cancel.h"
