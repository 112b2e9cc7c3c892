#pragma once
// The one precompiled header for LibTorch: every torch-using target reuses it.
#include <torch/script.h>
#include <torch/torch.h>
