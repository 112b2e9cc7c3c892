#pragma once
// training.privacy as a topology file gives it (the reader's part).
#include "JsonFields.h"
#include "Topology.h"

#include <optional>

namespace hips {

// parent[key]: {"where", "clip_norm", "noise_multiplier", "delta", "target_epsilon", "sampling",
// "rerun_rounds"}; nullopt when absent (an issue for each wrong field).
std::optional<PrivacySettings> readPrivacy(JsonFields& parent, const char* key);

}  // namespace hips
