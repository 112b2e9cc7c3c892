// Checks of the parties' own data and of the model's input: the topology alone, before any file
// is read (the files are checked on the parties' own hosts, before round 1).
#include "DataValidation.h"

#include "AggregatorRegistry.h"
#include "FieldRules.h"
#include "ModeRegistry.h"
#include "TopologyLimits.h"

#include <QCoreApplication>
#include <QDir>
#include <QSet>

namespace hips {

namespace {

// (Every message is translated in the TopologyCheck context, as the other checks are, with
// QCoreApplication::translate spelled out: lupdate cannot see through a wrapper.)

void checkSource(const DataSource& source, const QString& path, const QString& owner, TopologyIssues* issues) {
    if (const QString problem =
            textProblem(source.path, kMaxPathLength, owner + QCoreApplication::translate("TopologyCheck", ": data path"));
        !problem.isEmpty())
        issues->append({path + ".path", problem});
    else if (!QDir::isAbsolutePath(source.path))
        issues->append({path + ".path", QCoreApplication::translate(
                                            "TopologyCheck", "%1: data path '%2' is relative; write the absolute path on the party's hosts")
                                            .arg(owner, source.path)});
    for (auto it = source.options.begin(); it != source.options.end(); ++it)
        if (const QString problem =
                textProblem(*it, kMaxPathLength, owner + QCoreApplication::translate("TopologyCheck", ": data option ") + it.key());
            !problem.isEmpty())
            issues->append({path + '.' + it.key(), problem});
    if (const double holdout = source.option(QStringLiteral("holdout"), QStringLiteral("0.5")).toDouble(); !(holdout > 0 && holdout <= 0.9))
        issues->append(
            {path + ".holdout", QCoreApplication::translate("TopologyCheck",
                                                            "%1: holdout %2 is not a fraction in (0, 0.9]; give the share of samples the "
                                                            "party tests on, e.g. 0.1")
                                    .arg(owner, source.option(QStringLiteral("holdout")))});
}

// The parties whose workers a host runs.
QSet<QString> partiesOnHost(const Topology& t, const QString& host) {
    QSet<QString> out;
    for (const Party& p : t.parties)
        for (const WorkerGroup& g : p.workers)
            if (g.host == host && g.count > 0) out.insert(p.id);
    return out;
}

// Every worker of a party that trains reads some source: the party's, or its host's.
bool partyHasData(const Topology& t, const Party& p) {
    if (p.data) return true;
    for (const WorkerGroup& g : p.workers)
        if (g.count > 0 && !t.dataSourceOf(p.id, g.host)) return false;
    return true;
}

// One of two paths holds the other (or they are the same): /data/a and /data/a/train.
bool nested(const QString& a, const QString& b) {
    const QString x = QDir::cleanPath(a) + QLatin1Char('/'), y = QDir::cleanPath(b) + QLatin1Char('/');
    return x.startsWith(y) || y.startsWith(x);
}

struct NamedSource {
    QString party, path, field;
};

// Each party's sources, its own and its hosts'.
QList<NamedSource> partySources(const Topology& t) {
    QList<NamedSource> out;
    for (int i = 0; i < t.parties.size(); ++i) {
        const Party& p = t.parties[i];
        if (p.data) out.append({p.id, p.data->path, QStringLiteral("$.parties[%1].data.path").arg(i)});
        for (const WorkerGroup& g : p.workers)
            for (int h = 0; h < t.hosts.size(); ++h)
                if (t.hosts[h].id == g.host && t.hosts[h].data)
                    out.append({p.id, t.hosts[h].data->path, QStringLiteral("$.hosts[%1].data.path").arg(h)});
    }
    return out;
}

// A party's data is its own: a path two parties name is one data set read twice, or a topology
// edited to make one party read another's. (Different folders on different machines that happen
// to share a path take different names, a symbolic link will do.)
void checkSourcesApart(const Topology& t, TopologyIssues* issues) {
    const QList<NamedSource> sources = partySources(t);
    for (int i = 0; i < sources.size(); ++i)
        for (int j = 0; j < i; ++j)
            if (sources[i].party != sources[j].party && nested(sources[i].path, sources[j].path)) {
                issues->append({sources[i].field,
                                QCoreApplication::translate("TopologyCheck",
                                                            "party '%1' reads %2 and party '%3' reads %4, one inside the other: a party's "
                                                            "data is its own and only its hosts read it; give each party a path of "
                                                            "its own")
                                    .arg(sources[i].party, sources[i].path, sources[j].party, sources[j].path)});
                break;
            }
    // The master's test set is no party's training data: the same path, or one inside another,
    // would score the model on rows it trained on.
    if (!t.training.evaluationData) return;
    for (const NamedSource& s : sources)
        if (nested(t.training.evaluationData->path, s.path)) {
            issues->append({"$.training.evaluation_data.path",
                            QCoreApplication::translate("TopologyCheck",
                                                        "the master's test set %1 and party '%2''s data %3 are one inside the "
                                                        "other: the model would be scored on rows it trained on; give the test "
                                                        "set a path of its own")
                                .arg(t.training.evaluationData->path, s.party, s.path)});
            return;
        }
}

void checkModelInput(const TrainingSettings& s, TopologyIssues* issues) {
    if (s.torchScript()) {
        if (const QString problem =
                textProblem(s.modelFile, kMaxPathLength, QCoreApplication::translate("TopologyCheck", "the model file"));
            !problem.isEmpty())
            issues->append({"$.training.model.torchscript", problem});
        return;  // its input is checked by a forward pass on each worker
    }
    if (s.inputShape.size() == 3 && s.inputShape[1] != s.inputShape[2]) {
        issues->append(
            {"$.training.input_shape", QCoreApplication::translate("TopologyCheck",
                                                                   "the built-in models take square images, not %1 x %2; resize the "
                                                                   "images, or bring your own model as TorchScript")
                                           .arg(s.inputShape[1])
                                           .arg(s.inputShape[2])});
        return;
    }
    if (const QString problem = ModelRegistry::inputProblem(s.model, s.modelInput()); !problem.isEmpty())
        issues->append({s.inputShape.isEmpty() ? "$.training.model" : "$.training.input_shape", problem});
}

// A regression learns float targets from the parties' own tables and arrays; the built-in data
// sets and image folders hold class labels, and the class-wise partitions split by class.
void checkRegression(const Topology& t, TopologyIssues* issues) {
    if (!t.training.regression()) return;
    if (!t.partiesBringData()) {
        issues->append(
            {"$.training.task", QCoreApplication::translate("TopologyCheck",
                                                            "a regression trains on the parties' own data: give each party a \"data\" "
                                                            "source (csv, npy or npz with float targets) and training.evaluation_data")});
        return;
    }
    const QStringList formats{QStringLiteral("csv"), QStringLiteral("npy"), QStringLiteral("npz")};
    const auto check = [&](const DataSource& s, const QString& path) {
        if (!formats.contains(s.format))
            issues->append(
                {path + ".format", QCoreApplication::translate("TopologyCheck",
                                                               "a regression reads float targets from csv, npy or npz; %1 holds class "
                                                               "labels")
                                       .arg(s.format)});
        if (s.options.contains(QStringLiteral("classes")))
            issues->append(
                {path + ".classes",
                 QCoreApplication::translate("TopologyCheck", "a regression's targets are numbers, not classes: remove \"classes\"")});
    };
    for (int i = 0; i < t.parties.size(); ++i)
        if (t.parties[i].data) check(*t.parties[i].data, QStringLiteral("$.parties[%1].data").arg(i));
    for (int i = 0; i < t.hosts.size(); ++i)
        if (t.hosts[i].data) check(*t.hosts[i].data, QStringLiteral("$.hosts[%1].data").arg(i));
    if (t.training.evaluationData) check(*t.training.evaluationData, "$.training.evaluation_data");
    if (t.training.partition != QLatin1String("iid"))
        issues->append(
            {"$.training.partition", QCoreApplication::translate("TopologyCheck",
                                                                 "partition %1 splits by class, and a regression has none: use iid "
                                                                 "(each party's own data is its own split already)")
                                         .arg(t.training.partition)});
}

}  // namespace

void checkData(const Topology& t, TopologyIssues* issues) {
    checkModelInput(t.training, issues);
    checkRegression(t, issues);
    for (int i = 0; i < t.parties.size(); ++i)
        if (t.parties[i].data)
            checkSource(*t.parties[i].data, QStringLiteral("$.parties[%1].data").arg(i),
                        QCoreApplication::translate("TopologyCheck", "party '%1'").arg(t.parties[i].id), issues);
    for (int i = 0; i < t.hosts.size(); ++i) {
        const Host& h = t.hosts[i];
        if (!h.data) continue;
        const QString path = QStringLiteral("$.hosts[%1].data").arg(i);
        checkSource(*h.data, path, QCoreApplication::translate("TopologyCheck", "host '%1'").arg(h.id), issues);
        if (const QSet<QString> parties = partiesOnHost(t, h.id); parties.size() > 1)
            issues->append(
                {path, QCoreApplication::translate("TopologyCheck",
                                                   "host '%1' runs workers of %2 parties, and a party's data is its own: give each "
                                                   "party its data instead of the host")
                           .arg(h.id)
                           .arg(parties.size())});
    }
    if (t.training.evaluationData) {
        checkSource(*t.training.evaluationData, "$.training.evaluation_data",
                    QCoreApplication::translate("TopologyCheck", "evaluation_data"), issues);
        if (t.training.evaluationData->options.contains(QStringLiteral("holdout")))
            issues->append(
                {"$.training.evaluation_data.holdout", QCoreApplication::translate("TopologyCheck",
                                                                                   "the master's test set is all test: holdout is for a "
                                                                                   "party's data; remove it here")});
    }
    const auto partyRule = AggregatorRegistry::create(t.training.partyAggregation);
    const bool draco = partyRule && partyRule->codesWorkers();  // Draco's codes
    for (int i = 0; i < t.parties.size() && draco; ++i)
        for (const WorkerGroup& g : t.parties[i].workers)
            if (const Host* h = t.host(g.host); h && h->data) {
                issues->append({QStringLiteral("$.parties[%1]").arg(i),
                                QCoreApplication::translate(
                                    "TopologyCheck",
                                    "%1 codes the workers of party '%2' over one data set: give the party one \"data\" source, "
                                    "not host '%3' a source of its own")
                                    .arg(t.training.partyAggregation, t.parties[i].id, h->id)});
                break;
            }
    checkSourcesApart(t, issues);
    if (!t.partiesBringData()) return;  // split_from: the run's dataset, split over every party
    if (ModeRegistry::policy(t.training.mode).standalone)
        issues->append({"$.training.mode", QCoreApplication::translate("TopologyCheck",
                                                                       "mode %1 trains one model alone on the run's dataset, and the "
                                                                       "parties' own data never leaves their hosts: pick a federated "
                                                                       "mode, or remove every party's \"data\" to train on the dataset")
                                               .arg(t.training.mode)});
    for (int i = 0; i < t.parties.size(); ++i) {
        const Party& p = t.parties[i];
        const bool trains = p.workerCount() > 0 && (!p.central || t.training.trainCentralWorkers);
        if (trains && !partyHasData(t, p))
            issues->append(
                {QStringLiteral("$.parties[%1]").arg(i),
                 QCoreApplication::translate("TopologyCheck",
                                             "party '%1' trains but has no data of its own, and other parties bring theirs: give it a "
                                             "\"data\" source, or remove every party's \"data\" to split the run's dataset over all")
                     .arg(p.id)});
    }
    if (!t.training.evaluationData)
        issues->append({"$.training", QCoreApplication::translate("TopologyCheck",
                                                                  "the parties bring their own data: declare the master's test set as "
                                                                  "training.evaluation_data (a source like a party's \"data\")")});
}

}  // namespace hips
