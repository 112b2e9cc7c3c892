#pragma once
#include <stdexcept>

namespace hips {

// A role process gives up: a peer is dead or silent, or a message broke the protocol.
// The message names the peer and what to do; the process exits with kRoleFailed.
class RoleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Another process of this node took its place (its host was cut off and the node was started
// elsewhere, which the scheduler knows): this one stops and is not restarted (kRoleSuperseded).
class RoleSuperseded : public RoleError {
public:
    using RoleError::RoleError;
};

enum RoleExit { kRoleOk = 0, kRoleUsage = 2, kRoleFailed = 3, kRoleTrainFailed = 4, kRoleSuperseded = 5 };

}  // namespace hips
