#pragma once
#include <stdexcept>
#include <string>

namespace hips {

// A training-side failure with a message a user can act on (missing data set, bad device...).
class TrainError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace hips
