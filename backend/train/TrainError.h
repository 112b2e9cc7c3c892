#pragma once
#include <stdexcept>
#include <string>

namespace hips {

// A training-side failure with a message a user can act on (missing data set, bad device...).
class TrainError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What LibTorch says went wrong, in one line: its own error's first line, or the line a
// TorchScript interpreter's error ends with ("RuntimeError: mat1 and mat2 shapes cannot be
// multiplied ...") rather than its traceback.
std::string torchErrorLine(const std::exception& e);

}  // namespace hips
