#pragma once
// The parties' emulated WAN links (Party::wan) on a role's channels: a message that crosses from
// a party with a `wan` leaves at its bandwidth (shared by the party's nodes that cross: its
// servers, or its workers in a flat run) after its latency; one to such a party from the central
// party, at the same rate and delay. Links inside a party are never shaped.
#include "LinkShaper.h"
#include "RoleContext.h"

#include <memory>

namespace hips {

// nullptr when no party of the run has a wan.
std::shared_ptr<LinkShaper> makeWanShaper(const RoleContext& ctx);

}  // namespace hips
