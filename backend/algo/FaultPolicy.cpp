#include "FaultPolicy.h"

#include <algorithm>

namespace hips {

const StrategyList& FaultPolicyRegistry::all() {
    using T = ParamSpec::Type;
    static const StrategyList list{
        {QString::fromLatin1(fault::kFail),
         QStringLiteral("The run stops at the first process that dies or falls silent, naming it."),
         {},
         {}},
        {QString::fromLatin1(fault::kContinue),
         QStringLiteral("Training goes on without a dead or silent process: rounds close with the contributors that "
                        "are up, the agents restart crashed workers, and a node that comes back rejoins."),
         {{QStringLiteral("min_workers"), T::CountOrFraction, 0, 100000, 1,
           QStringLiteral("workers of a party that must be up (a count, or a fraction of the party's; 0: all)")},
          {QStringLiteral("min_parties"), T::Integer, 1, 100000, 1, QStringLiteral("parties whose server must be up")},
          {QStringLiteral("round_timeout_s"), T::Number, 0, 86400, 0,
           QStringLiteral("seconds after which a round closes with the pushes it has, if at least min_workers (0: never)")},
          {QStringLiteral("max_restarts"), T::Integer, 0, 100, 3,
           QStringLiteral("restarts in a row of one crashed process by its agent, with backoff (1 s, doubling); one that ran a minute "
                          "before it crashed counts from the first again")}},
         {}},
    };
    return list;
}

int restartDelayMs(int attempt) {
    return std::min(30000, 1000 << std::clamp(attempt - 1, 0, 15));
}

}  // namespace hips
