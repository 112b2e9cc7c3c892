#include "DataPlan.h"

#include "DracoCodes.h"

namespace hips {

DataPlan dataPlanOf(const Topology& t, const Node& worker) {
    const TrainingSettings& s = t.training;
    DataPlan plan;
    const int index = t.trainingWorkerIndex(worker.id);
    const int partyFirst = index - worker.rank;  // the party's workers are consecutive training indices
    const Party* party = t.party(worker.party);
    if (s.partyAggregation == QLatin1String("draco_repetition") && party && !party->central) {
        const int r = int(s.partyParam(QStringLiteral("draco_r")));
        int groupsBefore = 0, groups = 0;
        for (const Party& p : t.parties) {
            if (p.central) continue;
            if (p.id == worker.party) groupsBefore = groups;
            groups += (p.workerCount() + r - 1) / r;
        }
        plan.partitions = groups;
        plan.parts.append({groupsBefore + worker.rank / r, 1.0});
        return plan;
    }
    if (s.partyAggregation == QLatin1String("draco_cyclic") && party && !party->central) {
        const DracoCyclicCode code(party->workerCount(), int(s.partyParam(QStringLiteral("draco_s"))));
        plan.partitions = t.trainingWorkerCount();
        for (int k = 0; k < code.window(); ++k) plan.parts.append({partyFirst + code.partition(worker.rank, k), code.coefficient(k)});
        return plan;
    }
    plan.partitions = t.trainingWorkerCount();
    plan.parts.append({index, 1.0});
    return plan;
}

}  // namespace hips
