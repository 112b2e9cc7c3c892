#pragma once
#include <stdexcept>

namespace hips {

// A role process gives up: a peer is dead or silent, or a message broke the protocol.
// The message names the peer and what to do; the process exits with kRoleFailed.
class RoleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum RoleExit { kRoleOk = 0, kRoleUsage = 2, kRoleFailed = 3, kRoleTrainFailed = 4 };

}  // namespace hips
