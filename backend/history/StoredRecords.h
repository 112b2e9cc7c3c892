#pragma once
// A stored run's metric records as its roles reported them, rebuilt from the history's rows, for
// what reads records rather than rounds (the charts of each worker, process and party).
#include <QJsonObject>
#include <QList>

namespace hips {

class RunStore;

struct StoredRecord {
    QJsonObject record;  // {"kind", "node", "round", fields...}
    double t = 0;  // unix seconds, as the controller received it
};

QList<StoredRecord> storedRecords(const RunStore& store, qint64 run);

}  // namespace hips
