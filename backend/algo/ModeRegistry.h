#pragma once
// Training modes (`training.mode`, `hips run --mode`): how workers and servers synchronise.
// This is the only list of modes; the roles ask isMode() for the one they run.
#include "StrategyInfo.h"

namespace hips {

namespace mode {
inline constexpr char kFedAvg[] = "fedavg";
inline constexpr char kLocal[] = "local";
}  // namespace mode

class ModeRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& nameOrAlias) { return findStrategy(all(), nameOrAlias); }
};

inline bool isMode(const QString& setting, const char* name) { return setting == QLatin1String(name); }

}  // namespace hips
